import RetryPolicyCore

/// A semantic check over one policy.
protocol PolicyCheck: Sendable {
    static var rule: LintRule { get }
    static func check(_ policy: Policy, context: LintContext) -> [LintFinding]
}

extension PolicyCheck {
    static func finding(at location: SourceLocation, _ message: String, suggestion: String? = nil) -> LintFinding {
        LintFinding(id: rule.id, severity: rule.defaultSeverity, location: location, message: message, suggestion: suggestion)
    }
}

/// Describes a rule for messages: `rule at line 12`.
func ruleName(_ rule: Rule, index: Int) -> String {
    if let location = rule.location { return "rule at line \(location.line)" }
    return "rule \(index + 1)"
}

