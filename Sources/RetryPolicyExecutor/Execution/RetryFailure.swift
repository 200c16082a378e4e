import RetryPolicyCore

/// The error an executor throws: the ``SDKError`` the policy chose, why
/// the executor stopped, and every attempt that led there.
///
/// Callers that only care about the taxonomy switch on `error.kind`; tools
/// and logs use `attempts` to explain the failure.
public struct RetryFailure: Error, Sendable, CustomStringConvertible {
    /// The error the policy chose for the last attempt (or for the
    /// cancellation or cooldown that prevented one).
    public var error: SDKError
    public var reason: StopReason
    /// Every attempt, in order. Empty when no attempt was sent (a cooldown
    /// rejected the request, or it was cancelled before the first try).
    public var attempts: [AttemptRecord]
    /// The last response the operation returned, when the failure was
    /// decided on a response (a final 503 still has a body worth showing).
    public var lastResponse: (any Sendable)?
    /// The last error the operation threw, when it threw.
    public var underlyingError: (any Error)?

    public init(
        error: SDKError,
        reason: StopReason,
        attempts: [AttemptRecord] = [],
        lastResponse: (any Sendable)? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.error = error
        self.reason = reason
        self.attempts = attempts
        self.lastResponse = lastResponse
        self.underlyingError = underlyingError
    }

    public var kind: SDKError.Kind { error.kind }

    public var description: String {
        let count = attempts.count == 1 ? "1 attempt" : "\(attempts.count) attempts"
        return "\(error.message) (\(reason.rawValue) after \(count))"
    }
}
