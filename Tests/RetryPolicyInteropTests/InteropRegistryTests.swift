import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// One handler per format, found through one list.
@Suite("Interop registry")
struct InteropRegistryTests {
    @Test("every format has exactly one handler, and export lists the formats that write")
    func oneHandlerPerFormat() {
        for format in InteropFormat.allCases {
            #expect(InteropRegistry.handlers.filter { $0.format == format }.count == 1, "\(format)")
            #expect(format.handler.format == format)
        }
        #expect(InteropRegistry.handlers.count == InteropFormat.allCases.count)
        #expect(InteropFormat.exportable == [.grpc, .envoy, .istio, .gatewayAPI])
        let policy = Policy(name: "p", attempts: 2, backoff: Backoff(initial: .milliseconds(100), max: .seconds(1)))
        for handler in InteropRegistry.handlers {
            #expect((handler.export(policy, file: "p.yaml") != nil) == handler.canExport, "\(handler.format)")
        }
    }

    @Test("what each handler recognises, detection finds, and no other handler claims it")
    func detectionIsUnambiguous() {
        let samples: [(String, InteropFormat?)] = [
            (#"{"methodConfig": []}"#, .grpc),
            ("retry_on: 5xx\nnum_retries: 2\n", .envoy),
            ("kind: VirtualService\nspec: {http: []}\n", .istio),
            ("resilience4j.retry:\n  instances: {a: {maxAttempts: 2}}\n", .resilience4j),
            ("[default]\nmax_attempts = 3\n", nil),
            ("version: 1\nname: p\nrules: []\n", nil),
        ]
        for (text, expected) in samples {
            let file = ForeignFile(bytes: Array(text.utf8), path: "f.yaml")
            #expect(Importer.detectFormat(file) == expected, "\(text)")
            #expect(InteropRegistry.handlers.filter { $0.recognizes(file) }.count == (expected == nil ? 0 : 1), "\(text)")
        }
    }
}
