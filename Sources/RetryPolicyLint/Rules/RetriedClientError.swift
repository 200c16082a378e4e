import RetryPolicyCore

/// RP108: retrying 4xx responses other than 408, 425 and 429.
enum RetriedClientError: PolicyCheck {
    static let rule = LintRule(
        id: "RP108", name: "retried-client-error", defaultSeverity: .warning,
        summary: "A 4xx other than 408, 425 and 429 is retried.",
        explanation: """
            A 4xx says the request itself is wrong (bad input, missing auth, not found). Sending the \
            same request again gets the same answer, so the retries only add load and latency. The \
            exceptions are transient by definition: 408 Request Timeout, 425 Too Early and \
            429 Too Many Requests. A 401 rule with `refresh_credentials: true` (refresh the token, \
            retry once) is also fine: the retried request is a different request.

            Fix: make the rule `action: stop`, or narrow its statuses to 408, 425, 429.
            """)

    static let transient: Set<Int> = [408, 425, 429]

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.attempts > 1 else { return [] }
        // Only a retrying rule naming such a status, or a retrying
        // default, can retry one: without either there is nothing to find
        // (most policies), and no table to build.
        let candidates = 400...499
        let canRetry = policy.defaultRule?.action == .retry || policy.rules.contains { rule in
            rule.action == .retry && !rule.refreshCredentials && rule.statuses.contains { pattern in
                let codes = pattern.codes
                guard codes.overlaps(candidates) else { return false }
                return (max(codes.lowerBound, candidates.lowerBound)...min(codes.upperBound, candidates.upperBound))
                    .contains { !transient.contains($0) }
            }
        }
        guard canRetry else { return [] }
        var byRule: [Int: Set<Int>] = [:]  // rule index (-1 = default) -> statuses
        let table = FirstMatchTable(compiled: context.compiled(policy), methods: HTTPMethod.standard)
        for code in 400...499 where !transient.contains(code) {
            for method in HTTPMethod.standard.indices {
                if let index = table.rule(for: .status(code), methodIndex: method) {
                    let rule = policy.rules[index]
                    guard rule.action == .retry, !rule.refreshCredentials else { continue }
                    byRule[index, default: []].insert(code)
                } else if policy.defaultRule?.action == .retry {
                    byRule[-1, default: []].insert(code)
                }
            }
        }
        return byRule.keys.sorted().map { index in
            let codes = IntegerRanges.text(byRule[index]!)
            if index < 0 {
                return finding(
                    at: context.place(policy.defaultRule?.location, policy),
                    "the default retries client errors \(codes); a 4xx other than 408, 425, 429 fails the same way again",
                    suggestion: "make the default stop, with rules for 408, 425, 429")
            }
            return finding(
                at: context.place(policy.rules[index].location, policy),
                "\(ruleName(policy.rules[index], index: index)) retries client errors \(codes); a 4xx other than 408, 425, 429 fails the same way again",
                suggestion: "use action: stop for these statuses")
        }
    }
}
