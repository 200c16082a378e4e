import RetryPolicyCore

/// RP104: `backoff.max` below `backoff.initial`.
enum BackoffMaxBelowInitial: PolicyCheck {
    static let rule = LintRule(
        id: "RP104", name: "backoff-max-below-initial", defaultSeverity: .error,
        summary: "backoff.max is below backoff.initial, so the cap overrides the initial delay.",
        explanation: """
            The delay before retry k is min(initial x multiplier^(k-1), max). With `max` below \
            `initial`, every delay is clamped to `max` from the first retry: the policy never waits \
            as long as `initial` says, which is certainly not what was written.

            Fix: raise `max` to at least `initial` (typical: initial 1s, max 30s), or lower `initial`.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        let backoff = policy.backoff
        guard let max = backoff.max, max < backoff.initial else { return [] }
        return [finding(
            at: context.place(key: "backoff.max", "backoff", or: backoff.location, policy),
            "backoff.max \(max.formattedForHumans) is below backoff.initial \(backoff.initial.formattedForHumans); every delay is clamped to \(max.formattedForHumans)",
            suggestion: "set max to at least \(backoff.initial.formattedForHumans)")]
    }
}
