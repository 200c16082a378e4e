import RetryPolicyCore

/// The metadata of one lint rule: what `--explain` prints and what SARIF
/// publishes as rule metadata.
public struct LintRule: Hashable, Sendable {
    /// Stable id, `RP101`; never reused for another meaning.
    public var id: String
    /// Short kebab-case name, `shadowed-rule`.
    public var name: String
    public var defaultSeverity: Diagnostic.Severity
    /// One sentence.
    public var summary: String
    /// Why it matters and how to fix it.
    public var explanation: String

    public init(id: String, name: String, defaultSeverity: Diagnostic.Severity, summary: String, explanation: String) {
        self.id = id
        self.name = name
        self.defaultSeverity = defaultSeverity
        self.summary = summary
        self.explanation = explanation
    }
}
