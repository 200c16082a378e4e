import RetryPolicyCore

/// Why a policy file (or the policy directory itself) could not be loaded:
/// every located problem in it.
public struct PolicyFileProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    /// Each prints as `file:line:column: error: message [id]`, escaped; a
    /// problem of the whole file or directory is located at its line 1,
    /// column 1.
    public var diagnostics: [Diagnostic]

    public init(path: String, diagnostics: [Diagnostic]) {
        self.path = path
        self.diagnostics = diagnostics
    }

    /// A problem of the whole file or directory at `path`: one error
    /// located at its start.
    public init(path: String, message: String) {
        self.init(path: path, diagnostics: [Diagnostic(location: SourceLocation(file: path, line: 1, column: 1), message: message)])
    }

    /// One diagnostic per line.
    public var description: String { Diagnostic.lines(diagnostics) }
}

/// Turns a policy file into a `Policy`.
///
/// The store does not parse YAML itself, so that it can be tested with any
/// source and so that a service can plug in its own loader (say, one that
/// applies site defaults). ``PolicyFileLoader/yaml(_:)`` is the standard
/// one.
public struct PolicyFileLoader: Sendable {
    /// `.success(nil)` for a file that is valid but is not a policy (a
    /// stack file), which the store skips.
    public let load: @Sendable (_ path: String) -> Result<Policy?, PolicyFileProblem>

    public init(_ load: @escaping @Sendable (_ path: String) -> Result<Policy?, PolicyFileProblem>) {
        self.load = load
    }
}
