import RetryPolicyCore

/// RP105: a multiplier below 1 makes delays shrink.
enum ShrinkingBackoff: PolicyCheck {
    static let rule = LintRule(
        id: "RP105", name: "backoff-multiplier-below-one", defaultSeverity: .warning,
        summary: "backoff.multiplier is below 1, so delays shrink as failures continue.",
        explanation: """
            Backoff exists to give a struggling server more room the longer it struggles. A \
            multiplier below 1 does the opposite: each retry comes sooner than the last, so a client \
            retries fastest exactly when the outage is longest. Use 1 for a constant delay, 2 for the \
            usual exponential backoff.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        let backoff = policy.backoff
        guard (backoff.multiplier < 1), (backoff.initial > .zero) else { return [] }
        let second = backoff.base(forRetry: 2)
        return [finding(
            at: context.place(key: "backoff.multiplier", "backoff", or: backoff.location, policy),
            "backoff.multiplier \(NumberText.number(backoff.multiplier)) is below 1: the delay shrinks from \(backoff.initial.formattedForHumans) before retry 1 to \(second.formattedForHumans) before retry 2",
            suggestion: "use multiplier 1 (constant) or 2 (exponential)")]
    }
}
