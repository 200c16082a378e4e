import RetryPolicyCore

/// RP126: a ratio budget with no share of requests and no minimum rate,
/// so no failure is ever retried.
enum RatioBudgetNeverAllowsRetry: PolicyCheck {
    static let rule = LintRule(
        id: "RP126", name: "ratio-budget-never-allows-retry", defaultSeverity: .warning,
        summary: "A ratio budget with retry_percent 0 and min_retries_per_second 0 never allows a retry.",
        explanation: """
            A ratio budget (Finagle, Linkerd, Envoy, the Gateway API) pays a retry from the \
            deposits of recent requests (`retry_percent` of each) and from a reserve of \
            `min_retries_per_second` over the window. With both at 0 nothing is ever deposited \
            and nothing is reserved: every failure stops with `budget_exhausted`, and the \
            policy's rules and attempts promise retries that never happen. Fix: raise either \
            (the peers use 20 % and 10 a second), or remove the retrying rules.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let budget = policy.budget, let ratio = budget.ratio, policy.retries,
            ratio.permille == 0, ratio.minRetriesPerSecond == 0
        else { return [] }
        return [finding(
            at: context.place(key: "budget.retry_percent", "budget.min_retries_per_second", "budget.preset", "budget",
                              or: budget.location, policy),
            "retry_percent 0 and min_retries_per_second 0: the ratio budget never allows a retry",
            suggestion: "raise retry_percent (the peers use 20) or min_retries_per_second (the peers use 10)")]
    }
}
