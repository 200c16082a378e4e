extension RetryStateStore {
    /// The default: the breaker's state lives in this process.
    public func admit(at now: Timestamp, through breaker: CircuitBreaker)
        -> (Admission, CircuitBreakerTransition?)
    {
        breaker.admitLocally(at: now)
    }

    /// The default: nothing to claim, admission decides at once.
    public func admitUnlessClaiming(at now: Timestamp, through breaker: CircuitBreaker)
        -> (Admission, CircuitBreakerTransition?)?
    {
        admit(at: now, through: breaker)
    }

    /// The default: nothing to claim, admission decides at once.
    public func claimProbe(at now: Timestamp, through breaker: CircuitBreaker) async
        -> (Admission, CircuitBreakerTransition?)
    {
        admit(at: now, through: breaker)
    }

    /// The default: the breaker's state lives in this process.
    public func record(
        failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp, in breaker: CircuitBreaker
    ) -> CircuitBreakerTransition? {
        breaker.recordLocally(failure: failure, ticket: ticket, at: now)
    }

    /// The default: the breaker's state lives in this process.
    public func release(_ ticket: CircuitBreakerStateMachine.Ticket, in breaker: CircuitBreaker) {
        breaker.releaseLocally(ticket)
    }
}
