import RetryPolicyCore
import RetryPolicyYAML

/// The located errors of an import.
public struct InteropError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
    /// One diagnostic per line.
    public var description: String { Diagnostic.lines(diagnostics) }

    init(_ rule: InteropRule, at location: SourceLocation, _ message: String, suggestion: String? = nil) {
        self.init([Diagnostic(rule, at: location, message, suggestion: suggestion)])
    }
}

extension Diagnostic {
    init(_ rule: InteropRule, at location: SourceLocation, _ message: String, suggestion: String? = nil) {
        self.init(id: rule.id, severity: .error, location: location, message: message, suggestion: suggestion)
    }
}
