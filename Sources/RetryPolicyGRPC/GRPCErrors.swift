#if GRPC  // the trait; without it this module is empty
import GRPCCore
import RetryPolicyCore
import RetryPolicyExecutor

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension ErrorClassifier {
    /// Reads what grpc-swift throws during an attempt. An `RPCError` is
    /// its status (`CANCELLED` is the caller's cancellation, never
    /// retried); the NIO transport reports a connection it could not make
    /// or lost as `UNAVAILABLE`, which gRFC A6 retries the same way. A
    /// `RuntimeError` of the transport is an unknown transport failure.
    public static let grpc = ErrorClassifier { error in
        if let error = error as? UnsentRequest { return error.attemptOutcome }
        if let error = error as? RPCError {
            if error.code == .cancelled { return .transport(.cancelled) }
            return .grpc(status: GRPCStatusCode(error.code), metadata: ResponseHeaders(error.metadata, named: []))
        }
        if let error = error as? RuntimeError, error.code == .transportError { return .transport(.unknown) }
        return nil
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension RPCError {
    /// The error a call ends with when the policy stopped without a
    /// response to hand over, its `cause` the `RetryFailure`: what the last
    /// attempt threw when it was a gRPC error of its own (a connection the
    /// transport could not make or lost), or else the policy's reason as a
    /// status: cancellation as `CANCELLED`; a spent deadline, or an attempt
    /// past the policy's per-attempt limit, as `DEADLINE_EXCEEDED`; a
    /// cooldown, an open breaker or an exhausted budget as `UNAVAILABLE`.
    ///
    /// The attempt's own error stays the failure's `underlyingError`.
    init(_ failure: RetryFailure) {
        var underlying = failure.underlyingError
        if let unsent = underlying as? UnsentRequest { underlying = unsent.error }
        let timedOut = failure.attempts.last?.outcome == .transport(.timeout)
        if var error = underlying as? RPCError, !timedOut {
            error.cause = failure
            self = error
            return
        }
        let code: RPCError.Code
        switch failure.reason {
        case .cancelled: code = .cancelled
        case .deadlineExceeded: code = .deadlineExceeded
        default:
            if timedOut {
                code = .deadlineExceeded
            } else {
                code = failure.error.transport == .cancelled ? .cancelled : .unavailable
            }
        }
        self.init(code: code, message: "retry policy: \(failure.description)", cause: failure)
    }
}
#endif
