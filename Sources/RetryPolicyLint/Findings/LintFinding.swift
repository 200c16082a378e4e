import RetryPolicyCore

/// One problem found in one file: a loader diagnostic or a semantic rule's
/// finding, in the one shape every report format renders, with the edit
/// that resolves it when there is one.
public struct LintFinding: Hashable, Sendable, CustomStringConvertible {
    /// Where, how bad, what, and what to write instead. Its id is `RP0xx`
    /// for structural problems the loader reports, `RP1xx` for semantic
    /// rules.
    public var diagnostic: Diagnostic
    /// The edit that resolves the finding, when resolving it is mechanical
    /// (`lint --fix` applies it).
    public var fix: LintFix?

    public init(_ diagnostic: Diagnostic, fix: LintFix? = nil) {
        self.diagnostic = diagnostic
        self.fix = fix
    }

    public init(
        id: String, severity: Diagnostic.Severity, location: SourceLocation, message: String, suggestion: String? = nil,
        fix: LintFix? = nil
    ) {
        self.init(Diagnostic(id: id, severity: severity, location: location, message: message, suggestion: suggestion), fix: fix)
    }

    /// The stable rule id.
    public var id: String {
        get { diagnostic.id ?? "" }
        set { diagnostic.id = newValue }
    }

    public var severity: Diagnostic.Severity {
        get { diagnostic.severity }
        set { diagnostic.severity = newValue }
    }

    public var location: SourceLocation {
        get { diagnostic.location }
        set { diagnostic.location = newValue }
    }

    /// One line naming the numbers involved, as found (JSON and SARIF
    /// encode it; the printed forms escape it).
    public var message: String {
        get { diagnostic.message }
        set { diagnostic.message = newValue }
    }

    /// What to write instead, when there is an obvious fix.
    public var suggestion: String? {
        get { diagnostic.suggestion }
        set { diagnostic.suggestion = newValue }
    }

    /// `file:line:col: warning: message [RP101]`: the diagnostic's one-line
    /// form.
    public var description: String { diagnostic.description }

    /// Report order: by file, line, column, then id.
    public static func reportOrder(_ lhs: LintFinding, _ rhs: LintFinding) -> Bool {
        if lhs.location != rhs.location { return lhs.location < rhs.location }
        return lhs.id < rhs.id
    }
}
