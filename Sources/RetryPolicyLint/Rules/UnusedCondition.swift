import RetryPolicyCore

/// RP125: a declared condition no rule names.
enum UnusedCondition: PolicyCheck {
    static let rule = LintRule(
        id: "RP125", name: "unused-condition", defaultSeverity: .warning,
        summary: "A declared condition is named by no rule, so a result classified into it takes the default.",
        explanation: """
            `conditions` declares outcome classes the caller's code reports (a 200 whose body is an \
            error page, say); rules decide what each means. A condition no rule names is decided by \
            `default` (or stops as internal_error without one), which is rarely what declaring it \
            meant. Lint sees the rules, not the code: which results fall in a condition, and any \
            decision the code overrides (`override:` of the executor's `run`), are invisible to it.

            Fix: add a rule for the condition, or remove it from `conditions`.
                conditions: [malformed_body]
                rules:
                  - {condition: malformed_body, error: status_5xx, action: retry}
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        let named = Set(policy.rules.flatMap(\.conditions))
        return policy.conditions.filter { !named.contains($0) }.map { condition in
            let decided = policy.defaultRule.map { "the default (\($0.action), \($0.error))" } ?? "no rule and no default (internal_error)"
            return finding(
                at: context.place(key: "conditions", or: policy.location, policy),
                "condition '\(condition)' is declared but no rule names it: results the code classifies into it are decided by \(decided)",
                suggestion: "add a rule such as `{condition: \(condition), error: status_5xx, action: retry}`, or remove it")
        }
    }
}
