import RetryPolicyCore

/// RP127: a ratio budget that does not bound a retry storm: it lets every
/// request retry, or its minimum rate alone allows as many retries as a
/// busy client sends requests.
enum RatioBudgetNeverBounds: PolicyCheck {
    /// The traffic the minimum is judged at, in requests a second. A
    /// policy states no traffic of its own; 1,000 a second is the figure
    /// Finagle's documentation of its defaults works with.
    static let referenceRequestsPerSecond = 1000

    static let rule = LintRule(
        id: "RP127", name: "ratio-budget-never-bounds", defaultSeverity: .warning,
        summary: "A ratio budget whose retry_percent is 100 or more, or whose minimum rate reaches 1,000 a second, does not bound a retry storm.",
        explanation: """
            Under a total outage a ratio budget lets a client send at most \
            `1 + retry_percent/100 + min_retries_per_second / requests per second` times its \
            requests. With `retry_percent` at 100 or more every request may retry at least once, \
            so the budget at least doubles the load on a failing server, which is what a budget \
            is there to prevent; and a `min_retries_per_second` of 1,000 or more lets a client \
            of up to 1,000 requests a second (the traffic Finagle's defaults are explained \
            with) retry every request whatever the percentage. Fix: keep `retry_percent` well \
            below 100 (the peers use 20) and the minimum small (the peers use 3 to 10).
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let budget = policy.budget, let ratio = budget.ratio, policy.retries, policy.attempts > 1 else { return [] }
        var findings: [LintFinding] = []
        if ratio.permille >= 1000 {
            let percent = NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)
            findings.append(finding(
                at: context.place(key: "budget.retry_percent", "budget", or: budget.location, policy),
                "retry_percent \(percent): every request may retry, so under an outage the budget lets through at least twice the load",
                suggestion: "lower retry_percent below 100 (the peers use 20)"))
        }
        let reference = Self.referenceRequestsPerSecond
        if ratio.minRetriesPerSecond >= reference {
            findings.append(finding(
                at: context.place(key: "budget.min_retries_per_second", "budget", or: budget.location, policy),
                "min_retries_per_second \(ratio.minRetriesPerSecond): at \(reference) requests a second the minimum alone lets every request retry, so the budget never binds",
                suggestion: "lower min_retries_per_second (the peers use 3 to 10)"))
        }
        return findings
    }
}
