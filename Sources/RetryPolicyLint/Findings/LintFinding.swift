import RetryPolicyCore

/// How much a finding matters. By default `error` fails CI; `--strict`
/// (`--fail-level warning`) fails it on warnings too, `--fail-level note`
/// on anything.
public enum LintSeverity: String, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case error
    case warning
    case note

    public var description: String { rawValue }

    private var rank: Int {
        switch self {
        case .error: 2
        case .warning: 1
        case .note: 0
        }
    }

    public static func < (lhs: LintSeverity, rhs: LintSeverity) -> Bool { lhs.rank < rhs.rank }
}

/// One problem found in one file: a loader diagnostic or a semantic rule's
/// finding, in the one shape every report format renders.
public struct LintFinding: Hashable, Sendable, CustomStringConvertible {
    /// Stable rule id: `RP0xx` for structural problems the loader reports,
    /// `RP1xx` for semantic rules.
    public var id: String
    public var severity: LintSeverity
    public var location: SourceLocation
    /// One line naming the numbers involved.
    public var message: String
    /// What to write instead, when there is an obvious fix.
    public var suggestion: String?
    /// The edit that resolves the finding, when resolving it is mechanical
    /// (`lint --fix` applies it).
    public var fix: LintFix?

    public init(
        id: String, severity: LintSeverity, location: SourceLocation, message: String, suggestion: String? = nil,
        fix: LintFix? = nil
    ) {
        self.id = id
        self.severity = severity
        self.location = location
        self.message = message
        self.suggestion = suggestion
        self.fix = fix
    }

    /// `file:line:col: warning: message [RP101]`, the form editors and
    /// compilers use. The path, message and suggestion may quote the file
    /// and are made safe to print with `DisplayText` (`message` itself
    /// keeps the exact text, for JSON and SARIF).
    public var description: String {
        var text = "\(DisplayText.escaped(location.description)): \(severity): \(DisplayText.escaped(message)) [\(id)]"
        if let suggestion { text += " (\(DisplayText.escaped(suggestion)))" }
        return text
    }

    /// Report order: by file, line, column, then id.
    public static func reportOrder(_ lhs: LintFinding, _ rhs: LintFinding) -> Bool {
        if lhs.location != rhs.location { return lhs.location < rhs.location }
        return lhs.id < rhs.id
    }
}
