/// A half-open circuit breaker's probe that must claim a permit from the
/// breaker's store before it may start, when that store may wait (a
/// database, which limits probes fleet-wide): what
/// `RequestStateMachine.Action.claimProbe` hands to a driver, which awaits
/// ``settle()`` and tells the machine the answer.
public struct ProbeClaim: Sendable {
    /// The breaker whose probe claims a permit.
    public let breaker: CircuitBreaker
    /// When the attempt asked to start.
    public let time: Timestamp

    package init(breaker: CircuitBreaker, at time: Timestamp) {
        self.breaker = breaker
        self.time = time
    }

    /// Claims the permit from the breaker's store, waiting as long as the
    /// store takes (each store bounds it): whether the probe starts, with
    /// its ticket, and the change of the breaker that caused.
    public func settle() async -> (Admission, CircuitBreakerTransition?) {
        await breaker.admitClaimingProbe(at: time)
    }

    /// Admits on this process's breaker alone, without waiting: what the
    /// store does when it cannot reach the shared state.
    public func settleWithoutWaiting() -> (Admission, CircuitBreakerTransition?) {
        breaker.admit(at: time)
    }
}
