import RetryPolicyCore

/// RP110: retry settings in a policy that makes one attempt.
enum DeadRetryConfiguration: PolicyCheck {
    static let rule = LintRule(
        id: "RP110", name: "dead-retry-configuration", defaultSeverity: .warning,
        summary: "A single-attempt policy carries retry settings that can never take effect.",
        explanation: """
            With `attempts: 1` there is never a second try, so a backoff, a retry budget and rules \
            that say `retry` do nothing. A reader will believe the client retries; an on-call engineer \
            will tune settings that change nothing. (Single-attempt policies are legitimate: a mobile \
            SDK may leave retries to its server. `retry_after` still matters there, for cooldowns.)

            Fix: delete the dead settings and use `action: stop`, or raise `attempts` if retries were \
            intended.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.attempts <= 1 else { return [] }
        var dead: [String] = []
        var firstLocation: SourceLocation?
        func note(_ text: String, _ location: SourceLocation?) {
            dead.append(text)
            if firstLocation == nil { firstLocation = location }
        }
        if policy.backoff != .immediate, policy.backoff.initial > .zero || policy.backoff.max.map({ $0 > .zero }) ?? true {
            note("backoff" + (policy.backoff.location.map { " (line \($0.line))" } ?? ""), policy.backoff.location)
        }
        if let budget = policy.budget {
            note("budget" + (budget.location.map { " (line \($0.line))" } ?? ""), budget.location)
        }
        let retrying = policy.rules.enumerated().filter { $0.element.action == .retry }
        if !retrying.isEmpty {
            var lines = retrying.prefix(5).map { ruleName($0.element, index: $0.offset) }
            if retrying.count > 5 { lines.append("\(retrying.count - 5) more rules") }
            note("action: retry in " + lines.joined(separator: ", "), retrying[0].element.location)
        }
        if policy.defaultRule?.action == .retry { note("action: retry in the default", policy.defaultRule?.location) }
        guard !dead.isEmpty else { return [] }
        return [finding(
            at: context.place(key: "attempts", or: firstLocation, policy),
            "attempts is \(policy.attempts), so \(dead.joined(separator: ", ")) can never take effect",
            suggestion: "remove them (use action: stop), or raise attempts")]
    }
}
