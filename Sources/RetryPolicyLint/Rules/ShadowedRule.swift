import RetryPolicyCore

/// RP101: a rule no input can reach because earlier rules match everything
/// it matches.
enum ShadowedRule: PolicyCheck {
    static let rule = LintRule(
        id: "RP101", name: "shadowed-rule", defaultSeverity: .warning,
        summary: "A rule can never match because earlier rules cover all its inputs.",
        explanation: """
            Rules are evaluated top to bottom and the first match decides, like a firewall table. \
            A rule whose every status, transport failure and method is already matched by earlier \
            rules never decides anything: it is dead text that misleads the reader, and usually \
            means the author expected it to win. Typical cause: a broad `5xx` rule written above a \
            specific `503` rule.

            Fix: move the specific rule above the broad one, or delete it.

                rules:
                  - {status: 503, error: status_5xx, action: retry}   # specific first
                  - {status: 5xx, error: status_5xx, action: stop}
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        let methods = distinguishedMethods(of: [policy])
        var findings: [LintFinding] = []
        for (index, candidate) in policy.rules.enumerated() where index > 0 {
            var reachable = false
            var matchesAnything = false
            var shadowing = Set<Int>()
            search: for input in PolicyInput.all {
                for method in methods where candidate.matches(input, method: method) {
                    matchesAnything = true
                    guard let first = policy.decidingRule(for: input, method: method), first < index else {
                        reachable = true
                        break search
                    }
                    shadowing.insert(first)
                }
            }
            guard matchesAnything, !reachable else { continue }
            let earlier = shadowing.sorted().map { ruleName(policy.rules[$0], index: $0) }
            findings.append(finding(
                at: context.place(candidate.location, policy),
                "\(ruleName(candidate, index: index)) can never match: \(earlier.joined(separator: " and ")) already \(earlier.count == 1 ? "matches" : "match") every input it matches",
                suggestion: "move it above \(earlier[0]) or delete it"))
        }
        return findings
    }
}
