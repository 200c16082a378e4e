import RetryPolicyCore

/// The metadata of one lint rule: what `--explain` prints and what SARIF
/// publishes as rule metadata.
public struct LintRule: Hashable, Sendable {
    /// Stable id, `RP101`; never reused for another meaning.
    public var id: String
    /// Short kebab-case name, `shadowed-rule`.
    public var name: String
    public var defaultSeverity: LintSeverity
    /// One sentence.
    public var summary: String
    /// Why it matters and how to fix it.
    public var explanation: String

    public init(id: String, name: String, defaultSeverity: LintSeverity, summary: String, explanation: String) {
        self.id = id
        self.name = name
        self.defaultSeverity = defaultSeverity
        self.summary = summary
        self.explanation = explanation
    }
}

/// What a check may look at besides the policy itself.
public struct LintContext: Sendable {
    /// The file the policy was loaded from, for findings on policies that
    /// carry no location.
    public var file: String
    /// The policies named in `parity`, loaded by the caller and keyed by the
    /// reference as written. A reference that failed to load is absent (the
    /// caller reports why).
    public var parityPolicies: [String: Policy]
    /// Where the `parity` key is written, when the caller knows it.
    public var parityLocation: SourceLocation?

    public init(file: String, parityPolicies: [String: Policy] = [:], parityLocation: SourceLocation? = nil) {
        self.file = file
        self.parityPolicies = parityPolicies
        self.parityLocation = parityLocation
    }

    /// `location`, else the policy's, else the top of the file.
    func place(_ location: SourceLocation?, _ policy: Policy) -> SourceLocation {
        location ?? policy.location ?? SourceLocation(file: file, line: 1, column: 1)
    }
}

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

/// `1 request`, `3 requests`.
func plural(_ count: Int, _ noun: String) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }
