#if GRPC  // the trait; without it this module is empty
/// Something about a call's set-up that the retrying transport reports
/// once per method: to its logger as a warning, and to its `diagnostics`
/// closure.
public enum GRPCRetryDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// grpc-swift's own retry or hedging is on for the method too
    /// (`CallOptions.executionPolicy`, or a method config's `retryPolicy`
    /// or `hedgingPolicy`): every one of its attempts runs the whole
    /// policy, so one call can send up to `grpcAttempts × policyAttempts`
    /// requests.
    case twoRetryLayers(method: String, grpcAttempts: Int, policyAttempts: Int)
    /// The method's calls are sent once, without the policy: their
    /// messages cannot be replayed.
    case oneAttempt(method: String, reason: OneAttemptReason)

    /// Why a method's calls cannot be replayed.
    public enum OneAttemptReason: String, Hashable, Sendable {
        /// The server streams its response: a retry after the first
        /// message would show the caller messages twice.
        case streamingResponse = "the server streams its response"
        /// The method descriptor has no RPC type (code generated before
        /// grpc-swift 2.3), so the transport cannot tell whether it
        /// streams.
        case unknownType = "its descriptor has no RPC type"
    }

    /// The most requests one call can send.
    public var amplification: Int? {
        guard case .twoRetryLayers(_, let grpcAttempts, let policyAttempts) = self else { return nil }
        return grpcAttempts.multipliedReportingOverflow(by: policyAttempts).partialValue
    }

    public var description: String {
        switch self {
        case .twoRetryLayers(let method, let grpcAttempts, let policyAttempts):
            "\(method): grpc-swift's own retry (\(grpcAttempts) attempts) runs the policy (\(policyAttempts) attempts) "
                + "on each of its attempts: up to \(amplification ?? 0) requests per call; "
                + "turn one of the two off (CallOptions.executionPolicy = nil, or no retryPolicy in the method config)"
        case .oneAttempt(let method, let reason):
            "\(method): sent once, without the retry policy: \(reason.rawValue)"
        }
    }
}
#endif
