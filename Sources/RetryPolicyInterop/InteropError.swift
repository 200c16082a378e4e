import RetryPolicyCore
import RetryPolicyYAML

/// Ids of import errors (the foreign file is malformed or breaks its own
/// format's rules). The loader's ids (RP001-RP009) are used for YAML and
/// file problems.
public enum InteropRule: String, Sendable, CaseIterable {
    /// A required field is missing.
    case missingField = "RPI01"
    /// A field has the wrong type.
    case wrongType = "RPI02"
    /// A value the format's own validation rejects.
    case invalidValue = "RPI03"
    /// The file is not of the named format.
    case notThisFormat = "RPI04"
    /// The file is of the named format but holds no retry settings.
    case noRetrySettings = "RPI05"
    /// The file holds several retry configurations and none was chosen,
    /// or the chosen name matches none.
    case selection = "RPI06"

    public var id: String { rawValue }
}

/// The located errors of an import.
public struct InteropError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }

    init(_ rule: InteropRule, at location: SourceLocation, _ message: String, suggestion: String? = nil) {
        self.init([Diagnostic(rule, at: location, message, suggestion: suggestion)])
    }
}

extension Diagnostic {
    init(_ rule: InteropRule, at location: SourceLocation, _ message: String, suggestion: String? = nil) {
        self.init(id: rule.id, severity: .error, location: location, message: message, suggestion: suggestion)
    }
}
