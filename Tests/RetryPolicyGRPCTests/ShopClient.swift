#if GRPC  // the trait; these tests need grpc-swift and its NIO transport
// docs/grpc.md begin
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import RetryPolicyExecutor
import RetryPolicyGRPC
import RetryPolicyStore

/// A service's gRPC client whose calls run under the policies of a
/// directory: each gRPC service's calls under the policy `policyNames`
/// names for it, looked up at every call, so that a reload takes effect at
/// the next one. A service without a policy is called once, as it is.
struct ShopClient: Sendable {
    let transport: RetryingClientTransport<HTTP2ClientTransport.Posix, ContinuousClock>

    init(
        target: any ResolvableTarget, store: PolicyStore, policyNames: [String: String],
        telemetry: RetryTelemetry? = nil
    ) throws {
        transport = RetryingClientTransport(
            wrapping: try HTTP2ClientTransport.Posix(target: target, transportSecurity: .plaintext),
            policies: GRPCMethodPolicies { method in
                guard let name = policyNames[method.service.fullyQualifiedService],
                    let decider = store.decider(named: name)
                else { return nil }
                return GRPCMethodPolicy(executor: RetryExecutor(decider: decider, telemetry: telemetry))
            })
    }

    /// Runs `body` with a client on the retrying transport; generated
    /// stubs wrap it as usual (`Shop_Catalog.Client(wrapping: client)`).
    func withClient<Result: Sendable>(
        _ body: @Sendable (GRPCClient<RetryingClientTransport<HTTP2ClientTransport.Posix, ContinuousClock>>) async throws -> Result
    ) async throws -> Result {
        try await withGRPCClient(transport: transport) { client in try await body(client) }
    }
}
// docs/grpc.md end
#endif
