#if AsyncHTTPClient && GRPC  // the traits; these tests need SwiftNIO, AsyncHTTPClient and grpc-swift
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCTestSupport
import HTTPTestSupport
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyGRPC
import RetryPolicyTesting

/// `RetryingClientTransport` of RetryPolicyGRPC, wrapping grpc-swift 2's
/// NIO HTTP/2 client transport, under a `GRPCClient` as an app makes one,
/// against a gRPC server playing the case's script (`GRPCScript` states
/// the mapping).
///
/// A call the policy stopped on ends with the server's status as an
/// `RPCError` whose `cause` is the `RetryFailure`: the adapter reports
/// that failure, or, when the case returns the last response, the status
/// and its message as the response.
struct GRPCAdapter: AdapterUnderTest {
    var description: String { "RetryingClientTransport (grpc-swift 2)" }
    var classifier: ErrorClassifier { .grpc }
    var inapplicableCases: [String: String] { GRPCScript.inapplicableCases }

    func startServer(_ script: [ServerAction]) async throws -> any ScriptedServer {
        try await GRPCScriptedServer.start(script)
    }

    func send(
        _ request: ConformanceRequest, on executor: RetryExecutor<ManualClock>
    ) async throws(RetryFailure) -> ConformanceResponse {
        let policy = GRPCMethodPolicy(executor: executor, retryability: GRPCScript.retryability(of: request))
        do {
            guard let url = URLComponents(string: request.url), let host = url.host, let port = url.port else {
                throw RPCError(code: .invalidArgument, message: "not a host and port: \(request.url)")
            }
            let transport = RetryingClientTransport(
                wrapping: try HTTP2ClientTransport.Posix(
                    target: .ipv4(address: host, port: port), transportSecurity: .plaintext),
                policies: GRPCMethodPolicies { _ in policy })
            let metadata = GRPCScript.metadata(of: request, path: url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath)
            let reply = try await withGRPCClient(transport: transport) { client in
                if request.bodyIsOneShot {
                    let chunks = request.bodyChunks
                    let streamed = StreamingClientRequest(of: [UInt8].self, metadata: metadata) { writer in
                        for chunk in chunks { try await writer.write(chunk) }
                    }
                    return try await client.clientStreaming(
                        request: streamed, descriptor: Scripted.collect, serializer: BytesCoder(),
                        deserializer: BytesCoder(), options: .defaults
                    ) { try $0.message }
                }
                return try await client.unary(
                    request: ClientRequest(message: request.body ?? [], metadata: metadata), descriptor: Scripted.unary,
                    serializer: BytesCoder(), deserializer: BytesCoder(), options: .defaults
                ) { try $0.message }
            }
            return ConformanceResponse(status: 200, body: String(decoding: reply, as: UTF8.self))
        } catch let error as RPCError {
            guard let failure = error.cause as? RetryFailure else {
                throw RetryFailure(
                    error: SDKError(kind: .internalError, detail: "the call failed without a RetryFailure: \(error)"),
                    reason: .notRetryable, underlyingError: error)
            }
            if request.returningLastResponse, failure.lastResponse != nil,
                let status = GRPCScript.httpStatus(of: GRPCStatusCode(rawValue: error.code.rawValue) ?? .unknown)
            {
                return ConformanceResponse(status: status, body: error.message)
            }
            throw failure
        } catch {
            throw RetryFailure(
                error: SDKError(kind: .internalError, detail: "\(error)"), reason: .notRetryable, underlyingError: error)
        }
    }
}
#endif
