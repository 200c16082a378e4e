#if GRPC  // the trait; these tests need grpc-swift and its NIO transport
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCTestSupport
import RetryPolicyCore
import RetryPolicyStore
import Testing

/// docs/grpc.md's example is `ShopClient.swift`, compiled here, and runs
/// against the scripted server with a policy from a store's directory.
@Suite("docs/grpc.md", .serialized, .timeLimit(.minutes(2)))
struct GRPCDocumentTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The store's policy file: UNAVAILABLE retried at once (no backoff,
    /// so the continuous clock never waits), up to three attempts.
    static let catalogPolicy = """
        version: 1
        name: catalog
        attempts: 3
        rules:
          - grpc: [UNAVAILABLE]
            error: network_error
            action: retry
          - grpc: [INVALID_ARGUMENT, NOT_FOUND]
            error: network_error
            action: stop
        default:
          error: internal_error
          action: stop

        """

    @Test("the document shows exactly the compiled example")
    func documentShowsTheCompiledCode() throws {
        let document = try String(contentsOf: Self.repository.appendingPathComponent("docs/grpc.md"), encoding: .utf8)
        let section = try #require(document.range(of: "## Example"))
        let rest = document[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```\n"))
        let shown = String(rest[open.upperBound..<close.lowerBound])

        let source = try String(
            contentsOf: Self.repository.appendingPathComponent("Tests/RetryPolicyGRPCTests/ShopClient.swift"), encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let begin = try #require(lines.firstIndex { $0 == "// docs/grpc.md begin" })
        let end = try #require(lines.firstIndex { $0 == "// docs/grpc.md end" })
        #expect(shown == lines[(begin + 1)..<end].joined(separator: "\n") + "\n")
    }

    @Test("the example retries UNAVAILABLE under the store's policy, and leaves an unnamed service alone")
    func exampleRuns() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-doc-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Self.catalogPolicy.write(to: directory.appendingPathComponent("catalog.yaml"), atomically: true, encoding: .utf8)
        let store = PolicyStore(directory: directory.path, loader: .yaml())
        let report = store.reload()
        #expect(store.decider(named: "catalog") != nil, "\(report)")

        let server = try await ScriptedGRPCServer.start([.fail(.unavailable), .ok("17 in stock"), .fail(.unavailable)])
        let target = ResolvableTargets.IPv4.ipv4(address: "127.0.0.1", port: server.port)
        let shop = try ShopClient(target: target, store: store, policyNames: ["test.Scripted": "catalog"])
        let reply = try await shop.withClient { client in
            try await client.unary(
                request: ClientRequest(message: Array("17".utf8)), descriptor: Scripted.unary, serializer: BytesCoder(),
                deserializer: BytesCoder(), options: .defaults
            ) { String(decoding: try $0.message, as: UTF8.self) }
        }
        #expect(reply == "17 in stock")
        #expect(server.received.map(\.previousAttempts) == [nil, "1"])

        let unnamed = try ShopClient(target: target, store: store, policyNames: [:])
        await #expect(throws: RPCError.self) {
            try await unnamed.withClient { client in
                try await client.unary(
                    request: ClientRequest(message: Array("17".utf8)), descriptor: Scripted.unary, serializer: BytesCoder(),
                    deserializer: BytesCoder(), options: .defaults
                ) { try $0.message }
            }
        }
        await server.shutdown()
        #expect(server.callCount == 3)
    }
}
#endif
