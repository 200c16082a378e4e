import RetryPolicyCore

/// What an executor reports while it works, for timelines (`--verbose`),
/// tests and custom telemetry.
public enum RetryEvent: Hashable, Sendable {
    /// An attempt is about to be sent; `at` is measured from the start of
    /// the request.
    case attemptStarted(number: Int, at: Duration)
    /// An attempt finished and the policy decided.
    case attemptFinished(AttemptRecord)
    /// The executor sleeps before the next attempt, for the reason the
    /// request state machine gave.
    case waiting(Duration, cause: WaitReason)
    /// Credentials are being refreshed before a retry.
    case refreshingCredentials
    /// The request succeeded.
    case succeeded(attempts: Int, elapsed: Duration)
    /// The request failed; the failure carries its history.
    case failed(error: SDKError, reason: StopReason, attempts: Int, elapsed: Duration)
    /// The policy's circuit breaker changed state because of this request
    /// (an attempt's result opened or closed it, or an admission found the
    /// break over).
    case circuitBreaker(CircuitBreakerTransition)
    /// A hedged request will send its next copy after this long unless an
    /// attempt finishes first; `nil`: no further copy is scheduled.
    /// Reported after every step of a hedged request.
    case nextHedge(in: Duration?)
}

/// Receives ``RetryEvent``s synchronously, on the task running the
/// request; keep it cheap.
public typealias RetryObserver = @Sendable (RetryEvent) -> Void

/// Called before a retry that the policy marked `refresh_credentials`
/// (the 401 refresh-then-retry-once pattern). Throwing ends the request.
public typealias CredentialRefresher = @Sendable () async throws -> Void
