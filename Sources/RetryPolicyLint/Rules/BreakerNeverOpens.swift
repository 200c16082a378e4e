import RetryPolicyCore

/// RP120: a circuit breaker that can never open.
enum BreakerNeverOpens: PolicyCheck {
    static let rule = LintRule(
        id: "RP120", name: "breaker-never-opens", defaultSeverity: .warning,
        summary: "The circuit breaker can never open with its window, thresholds and failures.",
        explanation: """
            A breaker opens when its window holds at least `minimum_calls` calls and the failures \
            among them reach `failure_ratio`, or after `consecutive_failures` failures in a row. It \
            never opens when no outcome the policy can see counts as a failure (`failures` names \
            rules that never decide anything, kinds no rule reports, or, by default, the policy \
            retries nothing), or when a count window holds fewer calls than `minimum_calls` and \
            there is no `consecutive_failures` rule. Such a breaker only costs a lock per attempt. \
            Fix the numbers or the `failures` lists, or remove the breaker.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let breaker = policy.breaker else { return [] }
        var findings: [LintFinding] = []
        if case .count(let size) = breaker.sampling, breaker.minimumCalls > size, breaker.consecutiveFailures == nil {
            findings.append(finding(
                at: context.place(key: "breaker.minimum_calls", "breaker.window", "breaker", or: breaker.location, policy),
                "the breaker can never open: minimum_calls \(breaker.minimumCalls) is more than the window of \(size) calls holds, and consecutive_failures is not set",
                suggestion: "lower minimum_calls to at most \(size), or widen the window"))
        }
        if !anyFailure(policy) {
            let what =
                breaker.failures.isRetried
                ? "no outcome counts as a failure: by default a failure is an outcome the policy retries, and no rule or default retries"
                : "no outcome the policy decides counts as a failure under breaker.failures"
            findings.append(finding(
                at: context.place(key: "breaker.failures", "breaker", or: breaker.location, policy),
                "the breaker can never open: \(what)",
                suggestion: "name rules that decide something, kinds the rules report, or statuses under breaker.failures"))
        }
        return findings
    }

    /// Whether some input, for some method, counts as a failure.
    static func anyFailure(_ policy: Policy) -> Bool {
        let compiled = CompiledPolicy(policy: policy.withoutBudget)
        var methods = compiled.namedMethods
        // A method no rule names stands for every other one.
        methods.append(HTTPMethod(rawValue: "BREAKER-OTHER"))
        for method in methods {
            for status in StatusPattern.validCodes where compiled.breakerCountsFailure(.status(status), method: method) {
                return true
            }
            for transport in TransportFailure.allCases
            where compiled.breakerCountsFailure(.transport(transport), method: method) {
                return true
            }
        }
        return false
    }
}

/// RP121: a policy that retries 5xx with neither a breaker nor a budget.
enum UnboundedServerRetries: PolicyCheck {
    static let rule = LintRule(
        id: "RP121", name: "no-breaker-or-budget", defaultSeverity: .note,
        summary: "5xx is retried with neither a circuit breaker nor a retry budget.",
        explanation: """
            A 5xx says the server is failing. Retrying it helps a request through a brief fault, but \
            during an outage every client multiplies its load by `attempts` while the server is \
            least able to take it. A retry budget (`budget:`) stops retries once they stop \
            succeeding; a circuit breaker (`breaker:`) stops sending at all for a while. With \
            neither, nothing bounds the load a fleet adds during an outage. This is a note: a \
            service behind a gateway that already sheds load may not need either. Turn it off in \
            `.retry-policy.yaml` (`RP121: off`) when that is the case.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.breaker == nil, policy.budget == nil, policy.attempts > 1 else { return [] }
        let compiled = context.compiled(policy)
        var methods = compiled.namedMethods
        methods.append(HTTPMethod(rawValue: "BREAKER-OTHER"))
        for method in methods {
            for status in 500...599 {
                let resolution = compiled.resolution(for: .status(status), method: method)
                guard resolution.action == .retry else { continue }
                let key = resolution.ruleIndex.map { "rules[\($0)].status" } ?? "default"
                return [finding(
                    at: context.place(key: key, or: resolution.location, policy),
                    "\(status) is retried, but the policy has neither a circuit breaker nor a retry budget: during an outage nothing bounds the load its retries add",
                    suggestion: "add a budget: or breaker: section")]
            }
        }
        return []
    }
}
