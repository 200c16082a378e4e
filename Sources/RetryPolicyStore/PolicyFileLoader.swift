import RetryPolicyCore

/// Why a policy file could not be loaded: every located problem in it, each
/// rendered `file:line:column: error: message [id]`.
public struct PolicyFileProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var diagnostics: [String]

    public init(path: String, diagnostics: [String]) {
        self.path = path
        self.diagnostics = diagnostics
    }

    public var description: String { diagnostics.joined(separator: "\n") }
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
