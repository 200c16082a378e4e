/// The answer to "may an attempt start now?", one type from the circuit
/// breaker's state machine, through the ledger (``SharedRetryState``) and
/// the decider, to the request state machine: the cooldown and the breaker
/// answer with it, and a request's own deadline and budget refuse with it.
public enum Admission: Hashable, Sendable {
    /// Start it; `ticket` is the circuit breaker's, when one admitted it
    /// (its result goes back with the ticket).
    case proceed(ticket: CircuitBreakerStateMachine.Ticket?)
    /// A cooldown holds it back this long (the policy says to wait).
    case wait(Duration)
    /// It never starts: no request is sent, and it fails with this error.
    case reject(SDKError, Rejection)

    /// What refused an attempt.
    public enum Rejection: Hashable, Sendable {
        /// A cooldown, under a policy that fails fast.
        case cooldown
        /// The circuit breaker: open, or half-open with every probe out.
        case breaker
        /// The request's total deadline, reached or ending within the
        /// cooldown.
        case deadline
        /// The retry budget, which pays for no further hedge.
        case budget
        /// The adaptive rate limiter, which cannot send within its
        /// `max_wait`.
        case rateLimit

        /// The reason the request stops with.
        public var stopReason: StopReason {
            switch self {
            case .cooldown: .notRetryable
            case .breaker: .circuitOpen
            case .deadline: .deadlineExceeded
            // botocore's limiter refuses with the retry quota's error
            // (`CapacityNotAvailableError`): a client-side capacity.
            case .budget, .rateLimit: .budgetExhausted
            }
        }

        /// Whether the request reports the rejecting state's own error (a
        /// cooldown's, the breaker's) rather than its last attempt's.
        package var reportsOwnError: Bool {
            switch self {
            case .cooldown, .breaker, .rateLimit: true
            case .deadline, .budget: false
            }
        }
    }
}
