#if AsyncHTTPClient && GRPC  // the traits; these tests need SwiftNIO, AsyncHTTPClient and grpc-swift
import GRPCCore
import GRPCTestSupport
import HTTPTestSupport
import RetryPolicyCore

/// A contract case's script played by a grpc-swift 2 server
/// (`ScriptedGRPCServer`), each action mapped as `GRPCScript` states, and
/// what it received read back the same way.
struct GRPCScriptedServer: ScriptedServer {
    let server: ScriptedGRPCServer

    static func start(_ script: [ServerAction]) async throws -> GRPCScriptedServer {
        GRPCScriptedServer(server: try await ScriptedGRPCServer.start(try script.map(GRPCScript.reply(for:))))
    }

    /// gRPC over HTTP/2 without TLS; the adapter reads the host and port.
    var url: String { "http://127.0.0.1:\(server.port)" }
    var requestCount: Int { server.callCount }
    var received: [String] { server.received.map { $0.metadata.firstString(GRPCScript.pathKey) ?? "(none sent)" } }
    var methods: [String] { server.received.map { $0.metadata.firstString(GRPCScript.methodKey) ?? "(none sent)" } }
    var bodies: [[UInt8]] { server.received.map { $0.messages.flatMap { $0 } } }

    var headers: [[String: String]] {
        server.received.map { call in
            var headers: [String: String] = [:]
            for (key, value) in call.metadata {
                if case .string(let text) = value { headers[key.lowercased()] = text }
            }
            return headers
        }
    }

    var announcedEarlierAttempts: [Int?] { server.received.map { $0.previousAttempts.flatMap { Int($0) } } }

    /// gRFC A6: every attempt after the first says how many came before.
    func expectedEarlierAttempts(after attempts: Int) -> [Int?] {
        (0..<attempts).map { $0 == 0 ? nil : $0 }
    }

    func requests(atLeast count: Int) async { await server.calls(atLeast: count) }
    func abandonedHangs(atLeast count: Int) async { await server.abandonedHangs(atLeast: count) }
    func shutdown() async throws { await server.shutdown() }

    /// The transport's outcome for a status: the code, with no trailers
    /// the contract policy reads.
    func outcome(status: Int) -> AttemptOutcome {
        guard let code = try? GRPCScript.code(for: status) else { return .grpc(.ok) }
        return .grpc(GRPCStatusCode(rawValue: code.rawValue) ?? .unknown)
    }

    /// grpc-swift's NIO transport reports a lost connection as
    /// `UNAVAILABLE`, without trailers (no case that runs for gRPC drops
    /// one: see `GRPCScript.inapplicableCases`).
    var connectionLostOutcome: AttemptOutcome { .grpc(.unavailable) }

    /// A gRPC failure carries its code, never an HTTP status.
    func statusCode(of error: SDKError) -> Int? {
        guard error.statusCode == nil, let code = error.grpcStatus else { return nil }
        return GRPCScript.httpStatus(of: code)
    }

    /// The executor's attempts counter names an HTTP status only; a gRPC
    /// attempt's is `none`.
    func metricStatus(_ status: Int) -> String { "none" }

    /// A call has no URL: the request span names the policy's endpoint,
    /// the method's full name.
    func requestSpanTarget(path: String) -> (attribute: String, value: String) {
        ("retry_policy.endpoint", Scripted.unary.fullyQualifiedMethod)
    }
}
#endif
