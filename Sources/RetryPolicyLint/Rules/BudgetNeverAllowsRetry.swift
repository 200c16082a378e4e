import RetryPolicyCore

/// RP117: a token-bucket budget whose capacity is below what a retry costs,
/// so some failures (or all) are never retried.
enum BudgetNeverAllowsRetry: PolicyCheck {
    static let rule = LintRule(
        id: "RP117", name: "budget-never-allows-retry", defaultSeverity: .warning,
        summary: "The budget's capacity is below the cost of a retry, so those retries never happen.",
        explanation: """
            A token-bucket budget starts full and a retry needs its whole cost in the bucket. When \
            `capacity` is below `retry_cost`, `timeout_retry_cost` or `throttling_retry_cost`, \
            retries of that kind are refused even on a quiet system: every such failure stops \
            with `budget_exhausted` and the policy's rules and attempts promise retries that \
            never happen. Fix: raise `capacity` or lower the cost (a preset such as \
            `aws-standard` holds 500 tokens).
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let budget = policy.budget, budget.style == .tokenBucket, policy.retries else { return [] }
        var costs: [(key: String, what: String, cost: Int)] = [
            ("retry_cost", "retries", budget.retryCost),
            ("timeout_retry_cost", "retries after timeouts", budget.timeoutRetryCost),
        ]
        if !budget.throttlingErrors.isEmpty {
            costs.append(("throttling_retry_cost", "retries after throttling", budget.throttlingRetryCost))
        }
        let refused = costs.filter { $0.cost > budget.capacity }
        guard !refused.isEmpty else { return [] }
        let all = refused.count == costs.count
        let first = refused[0]
        let list = refused.map { "\($0.key) \($0.cost)" }.joined(separator: ", ")
        let message = all
            ? "capacity \(budget.capacity) is below every retry cost (\(list)): the budget never allows a retry"
            : "capacity \(budget.capacity) is below \(list): \(refused.map { $0.what }.joined(separator: " and ")) never happen"
        return [finding(
            at: context.place(key: "budget.capacity", "budget.\(first.key)", "budget.preset", "budget", or: budget.location, policy),
            message, suggestion: "raise capacity to at least \(refused.map { $0.cost }.max()!) or lower the cost")]
    }
}

/// RP118: gRPC throttling whose threshold a retry can never clear.
enum ThrottlingNeverAllowsRetry: PolicyCheck {
    static let rule = LintRule(
        id: "RP118", name: "grpc-throttling-never-allows-retry", defaultSeverity: .warning,
        summary: "gRPC throttling with max_tokens below 3 never allows a retry.",
        explanation: """
            gRPC retry throttling (gRFC A6) takes one token for every retryable failure and \
            allows a retry only while more than half of `max_tokens` remain. From a full bucket the \
            first failure leaves `max_tokens - 1`, which is above half only when `max_tokens` is 3 \
            or more; with 1 or 2 no request is ever retried, whatever `token_ratio` refunds. \
            Fix: raise `max_tokens`.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let budget = policy.budget, budget.style == .grpc, policy.retries else { return [] }
        guard budget.capacity - budget.retryCost <= budget.threshold else { return [] }
        return [finding(
            at: context.place(key: "budget.max_tokens", "budget", or: budget.location, policy),
            "max_tokens \(budget.maxTokens): the first failure leaves \(NumberText.thousandths(budget.capacity - budget.retryCost)) of \(budget.maxTokens) tokens, not more than half, so no request is ever retried",
            suggestion: "raise max_tokens to at least 3")]
    }
}

/// RP119: `throttling_errors` names a kind no retrying rule reports, so the
/// throttling cost never applies to it.
enum ThrottlingKindNeverRetried: PolicyCheck {
    static let rule = LintRule(
        id: "RP119", name: "throttling-kind-never-retried", defaultSeverity: .warning,
        summary: "budget.throttling_errors names an error kind that no retrying rule reports.",
        explanation: """
            Which failures count as throttling is data: the error kinds listed in \
            `budget.throttling_errors` (by default `status_429`) are charged \
            `throttling_retry_cost`, everything else `retry_cost` (or `timeout_retry_cost`). When \
            no rule that retries reports a listed kind (for instance the 429 rule reports a \
            declared `rate_limited` kind), the throttling cost never applies and throttled retries \
            are charged as transient ones. Fix: list the kind the throttling rule reports.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let budget = policy.budget, budget.style == .tokenBucket, policy.retries,
            budget.throttlingRetryCost != budget.retryCost
        else { return [] }
        var retried = Set(policy.rules.filter { $0.action == .retry }.compactMap(\.error))
        if let defaultRule = policy.defaultRule, defaultRule.action == .retry { retried.insert(defaultRule.error) }
        let unused = budget.throttlingErrors.subtracting(retried).map(\.rawValue).sorted()
        guard !unused.isEmpty else { return [] }
        let reported = retried.map(\.rawValue).sorted()
        return [finding(
            at: context.place(key: "budget.throttling_errors", "budget.preset", "budget", or: budget.location, policy),
            "budget.throttling_errors names \(unused.joined(separator: ", ")), which no retrying rule reports: throttling_retry_cost \(budget.throttlingRetryCost) never applies to it",
            suggestion: reported.isEmpty ? "list the kind the throttling rule reports" : "list the kinds the throttling rules report (retried: \(reported.joined(separator: ", ")))")]
    }
}
