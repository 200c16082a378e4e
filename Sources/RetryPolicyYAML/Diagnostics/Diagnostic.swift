import RetryPolicyCore

/// One problem found in a policy file, located precisely enough for an
/// editor or CI annotation to jump to it.
///
/// The loader reports structural problems (ids `RP0xx`); lint adds semantic
/// ones with the same shape, so every consumer formats them one way.
public struct Diagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning, note
    }

    /// A stable rule id (`RP001`...) that documentation, suppressions and
    /// configuration refer to; it never changes meaning between releases.
    public var id: String
    public var severity: Severity
    public var location: SourceLocation
    /// One line: what was expected and what was found.
    public var message: String
    /// A likely fix, such as "did you mean 'backoff'?".
    public var suggestion: String?

    public init(
        id: String,
        severity: Severity = .error,
        location: SourceLocation,
        message: String,
        suggestion: String? = nil
    ) {
        self.id = id
        self.severity = severity
        self.location = location
        self.message = message
        self.suggestion = suggestion
    }

    init(_ rule: LoaderRule, at location: SourceLocation, _ message: String, suggestion: String? = nil) {
        self.init(id: rule.rawValue, severity: .error, location: location, message: message, suggestion: suggestion)
    }

    /// `file:line:col: error: message [RP001]`, followed by
    /// ` (did you mean ...)` when there is a suggestion: the form compilers
    /// use, so terminals and editors make it clickable.
    ///
    /// The path, the message and the suggestion may quote the file (a key,
    /// a value, a name declared there), so each is made safe to print with
    /// `DisplayText`: whoever prints a diagnostic prints one line that
    /// cannot steer a terminal or forge a CI annotation. ``message`` itself
    /// stays as found, for formats that encode it (JSON).
    public var description: String {
        var text = "\(DisplayText.escaped(location.description)): \(severity.rawValue): \(DisplayText.escaped(message)) [\(id)]"
        if let suggestion { text += " (\(DisplayText.escaped(suggestion)))" }
        return text
    }
}

/// Every problem the loader found in a file (and the files it extends),
/// in file order, so that one run shows everything to fix.
public struct PolicyLoadError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    /// Problems counted but not described (a hostile file can have tens of
    /// thousands); the last diagnostic then says how many.
    var unlisted = 0
    var firstUnlisted: Diagnostic?

    public init(diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    init(_ diagnostic: Diagnostic) {
        self.diagnostics = [diagnostic]
    }

    /// One diagnostic per line.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
