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

    /// Findings beyond this many are summarised in one, so that a generated
    /// policy with thousands of dead rules gives a readable report.
    static let detailedFindings = 50

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        let methods = distinguishedMethods(of: [policy])
        let table = FirstMatchTable(compiled: context.compiled(policy), methods: methods)
        let reachable = table.reachableRules
        var findings: [LintFinding] = []
        var undetailed = 0
        for (index, candidate) in policy.rules.enumerated() where !reachable.contains(index) {
            let slots = FirstMatchTable.inputSlots(of: candidate)
            let targets = methods.indices.filter { candidate.methods?.contains(methods[$0]) ?? true }
            guard !slots.isEmpty, !targets.isEmpty else { continue }  // matches nothing: the loader's concern
            guard findings.count < detailedFindings else {
                undetailed += 1
                continue
            }
            var shadowing = Set<Int>()
            for slot in slots {
                for method in targets {
                    if let first = table.rule(atSlot: slot, methodIndex: method) { shadowing.insert(first) }
                }
            }
            let earlier = shadowing.sorted().prefix(3).map { ruleName(policy.rules[$0], index: $0) }
            let more = shadowing.count > 3 ? " and \(shadowing.count - 3) more" : ""
            findings.append(finding(
                at: context.place(candidate.location, policy),
                "\(ruleName(candidate, index: index)) can never match: \(earlier.joined(separator: " and "))\(more) already \(shadowing.count == 1 ? "matches" : "match") every input it matches",
                suggestion: "move it above \(earlier.first ?? "them") or delete it"))
        }
        if undetailed > 0 {
            findings.append(finding(
                at: context.place(policy.location, policy),
                "\(undetailed) more rules can never match because earlier rules cover all their inputs (only the first \(detailedFindings) are listed)"))
        }
        return findings
    }
}
