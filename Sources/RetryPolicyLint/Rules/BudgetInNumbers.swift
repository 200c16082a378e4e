import RetryPolicyCore

/// RP114: what a retry budget means, in numbers a person can check.
enum BudgetInNumbers: PolicyCheck {
    static let rule = LintRule(
        id: "RP114", name: "budget-in-numbers", defaultSeverity: .note,
        summary: "What the retry budget means in consecutive failed retries.",
        explanation: """
            A retry budget (token bucket) is shared by every request under the policy: retries \
            withdraw tokens, successes refund them. During an outage nothing refunds, so the bucket \
            empties after capacity / retry_cost retries and from then on requests fail fast with \
            `budget_exhausted` instead of adding load. Retries after timeouts and after throttling \
            may cost differently; gRPC throttling counts failures and stops retries at half of \
            max_tokens. This note states those numbers so that a \
            reviewer can check them against real traffic. Turn it off in `.retry-policy.yaml` \
            (`RP114: off`) once known.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let budget = policy.budget, policy.retries else { return [] }
        let bucket: TokenBucketBudget
        switch budget.rules {
        case .grpc(let throttling):
            var message = "gRPC throttling (max_tokens \(throttling.maxTokens)) allows \(budget.consecutiveRetries) consecutive "
                + "failed retries from full: every retryable failure costs one token and retries stop at half"
            if throttling.tokenRatio > 0 {
                // A retry needs more than threshold + one failure's cost.
                let refill = (throttling.threshold + GRPCRetryThrottling.failureCost) / throttling.tokenRatio + 1
                message += "; from empty, \(refill) successes (token_ratio \(NumberText.thousandths(throttling.tokenRatio))) allow the next retry"
            }
            return [finding(at: context.place(key: "budget", or: budget.location, policy), message)]
        case .ratio(let ratio):
            let percent = NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)
            let message = "the ratio budget allows retries of \(percent) % of the requests in the last "
                + "\(ratio.window.formattedForHumans) plus \(ratio.minRetriesPerSecond) a second; under a total outage "
                + "at 1,000 requests a second that is at most \(NumberText.number((ratio.amplificationBound(requestsPerSecond: 1000) * 1000).rounded() / 1000))x the load"
            return [finding(at: context.place(key: "budget", or: budget.location, policy), message)]
        case .tokenBucket(let tokenBucket):
            bucket = tokenBucket
        }
        var message = "the budget is empty after \(budget.consecutiveRetries) consecutive failed retries "
            + "(capacity \(budget.capacity) / retry_cost \(budget.retryCost))"
        if budget.timeoutRetryCost != budget.retryCost {
            message += ", or \(budget.consecutiveTimeoutRetries) after timeouts (timeout_retry_cost \(budget.timeoutRetryCost))"
        }
        if budget.throttlingRetryCost != budget.retryCost {
            let kinds = budget.throttlingErrors.map(\.rawValue).sorted().joined(separator: ", ")
            message += ", or \(budget.consecutiveThrottlingRetries) after throttling (\(kinds.isEmpty ? "no error kinds" : kinds); throttling_retry_cost \(budget.throttlingRetryCost))"
        }
        if bucket.successRefund > 0 {
            let refill = (bucket.capacity + bucket.successRefund - 1) / bucket.successRefund
            message += "; refilling it from empty takes \(refill) first-try successes"
        } else {
            message += "; first-try successes refund nothing, so only successful retries refill it"
        }
        return [finding(at: context.place(key: "budget", or: budget.location, policy), message)]
    }
}
