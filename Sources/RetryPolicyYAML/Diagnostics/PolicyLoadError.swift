import RetryPolicyCore

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
    public var description: String { Diagnostic.lines(diagnostics) }
}

extension Diagnostic {
    /// An error of one of the loader's checks, with its id.
    init(_ rule: LoaderRule, at location: SourceLocation, _ message: String, suggestion: String? = nil) {
        self.init(id: rule.rawValue, severity: .error, location: location, message: message, suggestion: suggestion)
    }
}
