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
    /// response to hand over: what the last attempt threw when it was a
    /// gRPC error, or else the policy's own reason (a cooldown, an open
    /// breaker, an exhausted budget) as `UNAVAILABLE`, cancellation as
    /// `CANCELLED`, a spent deadline as `DEADLINE_EXCEEDED`.
    init(_ failure: RetryFailure) {
        var underlying = failure.underlyingError
        if let unsent = underlying as? UnsentRequest { underlying = unsent.error }
        if let error = underlying as? RPCError {
            self = error
            return
        }
        let code: RPCError.Code
        switch failure.reason {
        case .cancelled: code = .cancelled
        case .deadlineExceeded: code = .deadlineExceeded
        default: code = failure.error.transport == .cancelled ? .cancelled : .unavailable
        }
        self.init(code: code, message: "retry policy: \(failure.description)", cause: failure)
    }
}
#endif
