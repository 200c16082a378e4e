import RetryPolicyCore

/// RP111: 501 Not Implemented is retried.
enum RetriedNotImplemented: PolicyCheck {
    static let rule = LintRule(
        id: "RP111", name: "retried-501", defaultSeverity: .warning,
        summary: "501 Not Implemented is retried, though it is never transient.",
        explanation: """
            501 means the server does not support the method at all: no amount of waiting changes \
            that. Broad rules such as `status: 5xx` sweep it in by accident. (505 HTTP Version Not \
            Supported is similar.)

            Fix: add a stop rule for 501 above the 5xx rule.
                rules:
                  - {status: 501, error: status_5xx, action: stop}
                  - {status: 5xx, error: status_5xx, action: retry}
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.attempts > 1 else { return [] }
        var reported = Set<Int>()
        var findings: [LintFinding] = []
        let compiled = context.compiled(policy)
        for method in HTTPMethod.standard {
            guard let decided = compiled.decidingAction(for: .status(501), method: method), decided.action == .retry else { continue }
            let key = decided.ruleIndex ?? -1
            guard reported.insert(key).inserted else { continue }
            let who = decided.ruleIndex.map { ruleName(policy.rules[$0], index: $0) } ?? "the default"
            let location = decided.ruleIndex.map { policy.rules[$0].location } ?? policy.defaultRule?.location
            findings.append(finding(
                at: context.place(location, policy),
                "\(who) retries 501 Not Implemented, which never succeeds on a retry",
                suggestion: "add `{status: 501, action: stop}` above it"))
        }
        return findings
    }
}
