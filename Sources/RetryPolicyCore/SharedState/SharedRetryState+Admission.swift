/// The ledger's admission port: what the cooldown and the circuit breaker
/// say about an attempt about to start, as one ``Admission``.
extension SharedRetryState {
    /// Whether a cooldown holds an attempt back at `now`, under a policy
    /// whose cooldowns are `mode`.
    func admitThroughCooldown(at now: Timestamp, mode: RetryAfterPolicy.Cooldown) -> Admission {
        guard mode != .off, let (until, error) = cooldown.active(at: now) else { return .proceed(ticket: nil) }
        let remaining = until.duration(since: now)
        switch mode {
        case .off: return .proceed(ticket: nil)
        case .wait: return .wait(remaining)
        case .reject:
            var rejected = error
            rejected.retryAfter = remaining
            return .reject(rejected, .cooldown)
        }
    }

    /// Whether the circuit breaker, if any, admits an attempt at `now`
    /// (taking one of a half-open breaker's probes) and the change of the
    /// breaker that caused, or `nil` when the breaker's store must first
    /// claim a probe permit, waiting (the driver then awaits
    /// ``ProbeClaim/settle()``).
    func admitThroughBreakerUnlessClaiming(at now: Timestamp) -> (Admission, CircuitBreakerTransition?)? {
        guard let breaker else { return (.proceed(ticket: nil), nil) }
        return breaker.admitUnlessClaiming(at: now)
    }
}
