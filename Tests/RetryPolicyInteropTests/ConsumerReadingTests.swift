import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyYAML
import Testing

/// Foreign files read as their own consumers read them (grpcio, botocore,
/// Envoy, resilience4j), errors located where the reader must look, and
/// the format detected as `diff --against` detects it.
@Suite("Foreign files read as their consumers read them")
struct ConsumerReadingTests {
    static func file(_ text: String, _ path: String = "config.yaml") -> ForeignFile {
        ForeignFile(bytes: Array(text.utf8), path: path)
    }

    static func refusal(_ text: String, _ format: InteropFormat, path: String = "config.yaml") -> InteropError? {
        do {
            _ = try Importer.importPolicy(file(text, path), from: format)
            return nil
        } catch {
            return error
        }
    }

    static let retryPolicy = #"{"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}"#

    // MARK: gRPC

    @Test("an empty loadBalancingConfig is refused at the list, with grpcio's words")
    func emptyLoadBalancingConfig() throws {
        let text = "{\"methodConfig\": [{\"name\": [{}], \"retryPolicy\": \(Self.retryPolicy)}],\n \"loadBalancingConfig\": []}"
        let error = try #require(Self.refusal(text, .grpc, path: "sc.json"))
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.id == "RPI03" && diagnostic.location.line == 2 && diagnostic.location.column == 25, "\(error)")
        #expect(diagnostic.message.contains("No known policies in list"), "\(error)")
        #expect(diagnostic.suggestion?.contains("round_robin") == true)
    }

    @Test("a loadBalancingConfig entry naming no policy, or two, is refused; one policy imports")
    func loadBalancingConfigEntries() throws {
        func config(_ list: String) -> String {
            "{\"methodConfig\": [{\"name\": [{}], \"retryPolicy\": \(Self.retryPolicy)}], \"loadBalancingConfig\": \(list)}"
        }
        #expect(Self.refusal(config("[{}]"), .grpc)?.diagnostics.first?.message.contains("no policy found in child entry") == true)
        #expect(Self.refusal(config(#"[{"round_robin": {}, "pick_first": {}}]"#), .grpc)?.diagnostics.first?.message.contains("oneOf violation") == true)
        #expect(Self.refusal(config(#"[{"round_robin": {}}]"#), .grpc) == nil)
    }

    // MARK: AWS

    @Test("keys indented under a section header are read, as botocore reads them")
    func indentedKeys() throws {
        let text = "[default]\n  retry_mode = standard\n  max_attempts = 5\n"
        let imported = try Importer.importPolicy(Self.file(text, "config"), from: .awsConfig)
        #expect(imported.attempts == 5 && imported.budget != nil, "\(imported.policy)")
        #expect(!imported.warnings.contains { $0.feature == "retry_mode" && $0.message.contains("not set") })
    }

    @Test("a line indented under a key continues its value, and the two-line value is refused with why")
    func continuationLine() throws {
        let text = "[default]\nretry_mode = standard\n  max_attempts = 7\n"
        let error = try #require(Self.refusal(text, .awsConfig, path: "config"))
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.id == "RPI03" && diagnostic.location.line == 2, "\(error)")
        #expect(diagnostic.suggestion?.contains("continues its value") == true, "\(error)")
    }

    @Test("nested settings (s3 = and indented lines) stay out of the profile; ':' separates as '=' does; keys ignore case")
    func nestedAndColon() throws {
        let text = "[profile batch]\nMax_Attempts : 4\nretry_mode=standard\ns3 =\n  max_attempts = 9\n  retry_mode = nonsense\n"
        let imported = try Importer.importPolicy(Self.file(text, "config"), from: .awsConfig, selection: "batch")
        #expect(imported.attempts == 4, "\(imported.policy)")
    }

    // MARK: Envoy

    @Test("Envoy's bare RetryPolicy example imports; one without retry_on says it makes no retries")
    func bareRetryPolicy() throws {
        let documented = """
            retry_on: "5xx,reset"
            num_retries: 3
            per_try_timeout: 2s
            retry_host_predicate:
            - name: envoy.retry_host_predicates.previous_hosts
            host_selection_retry_max_attempts: 3
            """
        let imported = try Importer.importPolicy(Self.file(documented, "retry.yaml"), from: .envoy)
        #expect(imported.attempts == 4)
        #expect(Importer.detectFormat(Self.file(documented)) == .envoy)

        let predicatesOnly = """
            retry_host_predicate:
            - name: envoy.retry_host_predicates.previous_hosts
            host_selection_retry_max_attempts: 3
            """
        let error = try #require(Self.refusal(predicatesOnly, .envoy))
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.id == "RPI05" && diagnostic.location.line == 1, "\(error)")
        #expect(diagnostic.message.contains("no retries") && !diagnostic.message.contains("expected an Envoy route configuration"), "\(error)")
        #expect(Importer.detectFormat(Self.file(predicatesOnly)) == .envoy)
        // Keys of something else are still not Envoy.
        #expect(Self.refusal("attempts: 3\nperTryTimeout: 2s\n", .envoy)?.diagnostics.first?.id == "RPI04")
    }

    @Test("export says that a policy without a total timeout turns off Envoy's 15s route timeout")
    func exportZeroTimeout() throws {
        let without = try loadPolicy("version: 1\nname: p\nattempts: 3\ntimeouts:\n  per_attempt: 2s\n", path: "p.yaml")
        let result = EnvoyExporter.export(without, file: "p.yaml")
        #expect(result.text.contains("timeout: \"0s\""), "\(result.text)")
        let warning = try #require(result.warnings.first { $0.feature == "timeouts.total" })
        #expect(warning.message.contains("15s") && warning.location.line == 4, "\(warning)")
        let with = try loadPolicy("version: 1\nname: p\nattempts: 3\ntimeouts:\n  total: 10s\n", path: "p.yaml")
        #expect(!EnvoyExporter.export(with, file: "p.yaml").warnings.contains { $0.feature == "timeouts.total" })
    }

    // MARK: Choosing

    @Test("several candidates and none chosen: RPI06 at the first, naming the second's location")
    func ambiguousAtFirst() throws {
        let text = "[profile a]\nmax_attempts = 3\n\n[profile b]\nmax_attempts = 4\n"
        let error = try #require(Self.refusal(text, .awsConfig, path: "config"))
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.id == "RPI06" && diagnostic.location.line == 1, "\(error)")
        #expect(diagnostic.message.contains("the second at config:4:1"), "\(error)")
    }

    @Test("an error in a resilience4j base config is reported once, at the config, naming the instances that inherit it")
    func inheritedErrorOnce() throws {
        let text = """
            resilience4j:
              retry:
                configs:
                  default:
                    waitDuration: soon
                instances:
                  orders:
                    maxAttempts: 3
                  payments:
                    maxAttempts: 4
                  search:
                    maxAttempts: 2
                    waitDuration: 1s
            """
        let (policies, errors) = try Importer.importEvery(Self.file(text, "application.yaml"), from: .resilience4j)
        #expect(policies.map(\.name) == ["search"], "\(policies.map(\.name))")
        let waits = errors.filter { $0.message.contains("waitDuration") }
        #expect(waits.count == 1, "\(errors)")
        let error = try #require(waits.first)
        #expect(error.location.line == 5, "\(error)")
        #expect(error.message.contains("inherited by orders, payments"), "\(error)")
    }

    // MARK: Detecting

    @Test("without a format the content decides; a contradicting format names the detected one")
    func formatDetection() throws {
        let route = Self.file("virtual_hosts:\n- name: a\n  domains: ['*']\n  routes:\n  - match: {prefix: /}\n    route: {cluster: a, retry_policy: {retry_on: 5xx}}\n")
        #expect(try Importer.format(of: route, given: nil) == .envoy)
        #expect(try Importer.format(of: route, given: .envoy) == .envoy)
        let wrong = try #require(throws: InteropError.self) { try Importer.format(of: route, given: .grpc) }
        let diagnostic = try #require(wrong.diagnostics.first)
        #expect(diagnostic.id == "RPI04" && diagnostic.suggestion == "this looks like an Envoy route configuration; use --from envoy", "\(wrong)")
        let ini = Self.file("[default]\nmax_attempts = 3\n", "config")
        #expect(try Importer.format(of: ini, given: .awsConfig) == .awsConfig)
        let unknown = try #require(throws: InteropError.self) { try Importer.format(of: ini, given: nil) }
        #expect(unknown.diagnostics.first?.suggestion?.contains("--from aws-config") == true, "\(unknown)")
    }
}
