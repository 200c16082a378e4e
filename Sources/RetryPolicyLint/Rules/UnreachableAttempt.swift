import RetryPolicyCore

/// RP103: in the worst case (every attempt times out, every backoff is at its
/// maximum) some attempt would start after the total deadline.
enum UnreachableAttempt: PolicyCheck {
    static let rule = LintRule(
        id: "RP103", name: "attempt-past-deadline", defaultSeverity: .warning,
        summary: "In the worst-case schedule an attempt can never start before the total deadline.",
        explanation: """
            The worst case of a policy is every attempt running until `timeouts.per_attempt` and every \
            backoff drawing its maximum. If the time those take reaches `timeouts.total`, the later \
            attempts can never start in that case: `attempts` promises more tries than the deadline \
            allows, and the request fails with `deadline_exceeded` instead. Readers (and on-call \
            engineers) then misjudge how hard the client really tries.

            Fix: lower `attempts`, shorten `per_attempt` or the backoff, or raise `total`, so that \
            attempts x per_attempt + the sum of maximum backoffs < total.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.attempts > 1 else { return [] }
        var findings: [LintFinding] = []
        var budgets: [(name: String?, budget: TimeoutBudget)] = [(nil, policy.timeouts)]
        for endpoint in policy.endpoints.keys.sorted() { budgets.append((endpoint, policy.timeouts(for: endpoint))) }
        for (endpoint, budget) in budgets {
            guard let perAttempt = budget.perAttempt, let total = budget.total else { continue }
            guard let message = worstCase(policy: policy, perAttempt: perAttempt, total: total) else { continue }
            let scope = endpoint.map { "for endpoint \($0), " } ?? ""
            let location = endpoint == nil ? budget.location : (policy.endpoints[endpoint!]?.location ?? budget.location)
            let prefix = endpoint.map { "endpoints.\($0)" } ?? "timeouts"
            findings.append(finding(
                at: context.place(key: prefix + ".total", prefix, or: location ?? policy.timeouts.location, policy), scope + message,
                suggestion: "lower attempts or per_attempt, or raise total"))
        }
        return findings
    }

    /// The sentence for the first attempt that cannot start, or `nil` when
    /// every attempt fits.
    static func worstCase(policy: Policy, perAttempt: Duration, total: Duration) -> String? {
        var start = Duration.zero
        var backoffs: [Duration] = []
        var previous: Duration?
        let limit = min(policy.attempts, PolicyDiff.attemptLimit)
        guard limit >= 2 else { return nil }
        for attempt in 2...limit {
            let retry = attempt - 1
            let delay = policy.backoff.bounds(forRetry: retry, previousDelay: previous).upperBound
            previous = delay
            backoffs.append(delay)
            start += perAttempt + delay
            if start >= total {
                let earlier = attempt - 1
                let attemptsText = earlier == 1 ? "attempt 1 times out" : "attempts 1-\(earlier) each time out"
                let backoffText = backoffs.map(\.formattedForHumans).joined(separator: " + ")
                let backoffSum = backoffs.reduce(Duration.zero, +)
                return "in the worst case attempt \(attempt) of \(policy.attempts) can never start: "
                    + "\(attemptsText) at per_attempt \(perAttempt.formattedForHumans) "
                    + "(\((perAttempt * earlier).formattedForHumans)) and the maximum backoff\(backoffs.count == 1 ? "" : "s") "
                    + "\(backoffText)\(backoffs.count == 1 ? "" : " (\(backoffSum.formattedForHumans))") "
                    + "bring it to \(start.formattedForHumans), at or past the total deadline \(total.formattedForHumans)"
            }
        }
        return nil
    }
}
