extension CompiledPolicy {
    /// Whether the policy's breaker counts `outcome` (sent with `method`)
    /// as a failure. A cancelled attempt is never one.
    package func breakerCountsFailure(_ outcome: AttemptOutcome, method: HTTPMethod) -> Bool {
        guard let failures = policy.breaker?.failures else { return false }
        return breakerCountsFailure(outcome, method: method, failures: failures)
    }

    /// Whether `failures` counts `outcome` (sent with `method`) as a
    /// failure, resolved against this policy's rules.
    package func breakerCountsFailure(
        _ outcome: AttemptOutcome, method: HTTPMethod, failures: CircuitBreakerConfiguration.Failures
    ) -> Bool {
        if case .transport(.cancelled) = outcome { return false }
        let resolution = resolution(for: outcome, method: method)
        if failures.isRetried { return resolution.action == .retry }
        if let index = resolution.ruleIndex, failures.rules.contains(index) { return true }
        if let kind = resolution.errorKind, failures.errors.contains(kind) { return true }
        if case .response(let status, _) = outcome, failures.statuses.contains(where: { $0.codes.contains(status) }) {
            return true
        }
        return false
    }
}
