import RetryPolicyCore

/// RP112: 429 or 503 retried while their Retry-After is ignored.
enum RateLimitWithoutRetryAfter: PolicyCheck {
    static let rule = LintRule(
        id: "RP112", name: "retry-after-ignored", defaultSeverity: .warning,
        summary: "429 or 503 is retried but Retry-After is not honoured.",
        explanation: """
            429 Too Many Requests and 503 Service Unavailable are the two statuses that come with \
            `Retry-After`: the server telling clients when it can take them again. Retrying them on \
            the client's own schedule ignores that and hits a server that has just said it is \
            overloaded, often earlier than it asked.

            Fix: honour the header for these rules (and cap it, see RP106).
                - {status: [429, 503], error: status_429, action: retry, honor_retry_after: true}
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.attempts > 1 else { return [] }
        var findings: [LintFinding] = []
        var reported = Set<Int>()
        let compiled = context.compiled(policy)
        for code in [429, 503] {
            guard let decided = compiled.decidingAction(for: .status(code), method: .get), decided.action == .retry else { continue }
            let honours = decided.honorsRetryAfter && !policy.retryAfter.headers.isEmpty
            guard !honours else { continue }
            let key = decided.ruleIndex ?? -1
            guard reported.insert(key).inserted else { continue }
            let who = decided.ruleIndex.map { ruleName(policy.rules[$0], index: $0) } ?? "the default"
            let location = decided.ruleIndex.map { policy.rules[$0].location } ?? policy.defaultRule?.location
            let codes = [429, 503].filter {
                compiled.decidingAction(for: .status($0), method: .get).map { ($0.ruleIndex ?? -1) == key && $0.action == .retry } ?? false
            }
            findings.append(finding(
                at: context.place(location, policy),
                "\(who) retries \(codes.map(String.init).joined(separator: " and ")) without honouring Retry-After",
                suggestion: "set honor_retry_after: true on the rule"))
        }
        return findings
    }
}
