import RetryPolicyCore

/// Loads policy files strictly: YAML through libyaml, `extends` resolved,
/// every problem of a file reported at once as located `Diagnostic`s.
///
/// ```swift
/// let policy = try PolicyLoader().loadPolicy(atPath: "policies/tmdb.yaml")
/// let decider = RetryDecider(policy: policy)
/// ```
public struct PolicyLoader: Sendable {
    public let limits: YAMLLimits
    /// Where files may be read from: the file loaded and every file it
    /// extends must lie inside (see ``PolicyRoot``).
    public let root: PolicyRoot
    /// What this run has loaded already (see ``PolicyLoadCache``); `nil`
    /// loads every file afresh.
    public let cache: PolicyLoadCache?

    /// - Parameters:
    ///   - limits: the size and nesting limits a file must keep to.
    ///   - root: by default every file but special file systems
    ///     and `.git` folders; a tool that loads files it did not choose (a
    ///     linter in CI, a policy store) passes the directory it trusts.
    ///   - cache: shares parsed files between the loads of one run (a
    ///     lint of many files naming the same bases and partners).
    public init(limits: YAMLLimits = .default, root: PolicyRoot = .wholeFileSystem(), cache: PolicyLoadCache? = nil) {
        self.limits = limits
        self.root = root
        self.cache = cache
    }

    /// Loads a policy file; a stack file is an error here.
    public func loadPolicy(atPath path: String) throws(PolicyLoadError) -> Policy {
        try policy(from: loadDocument(atPath: path), path: path)
    }

    /// Loads a policy from text; `path` names it in messages and anchors
    /// relative `extends` paths.
    public func loadPolicy(yaml: String, path: String) throws(PolicyLoadError) -> Policy {
        try policy(from: loadDocument(yaml: yaml, path: path), path: path)
    }

    /// Loads a policy from raw bytes (checked to be UTF-8).
    public func loadPolicy(bytes: [UInt8], path: String) throws(PolicyLoadError) -> Policy {
        try policy(from: loadDocument(bytes: bytes, path: path), path: path)
    }

    /// A path written in `file` (`extends`, `parity`, a stack layer)
    /// resolved against the directory of `file`, spelt the way `file` is
    /// spelt so that messages show familiar paths.
    package static func resolve(_ reference: String, relativeTo file: String) -> String {
        PolicyFileReader.resolve(reference, from: file)
    }

    /// Loads a policy or stack file.
    public func loadDocument(atPath path: String) throws(PolicyLoadError) -> PolicyDocument {
        let bytes = try PolicyFileReader.read(path, root: root, limits: limits).get()
        return try loadDocument(bytes: bytes, path: path)
    }

    /// Loads a policy or stack file from text.
    public func loadDocument(yaml: String, path: String) throws(PolicyLoadError) -> PolicyDocument {
        try loadDocument(bytes: Array(yaml.utf8), path: path)
    }

    /// Loads a policy or stack file from raw bytes (checked to be UTF-8).
    public func loadDocument(bytes: [UInt8], path: String) throws(PolicyLoadError) -> PolicyDocument {
        try loadDocument(bytes: bytes, path: path, canonicalPath: nil)
    }

    /// `canonicalPath` is where the root found `path`, when the caller
    /// read it through the root already (`nil`: resolved here).
    func loadDocument(bytes: [UInt8], path: String, canonicalPath: String?) throws(PolicyLoadError) -> PolicyDocument {
        let root: YAMLNode?
        do {
            root = try YAMLParser.parse(bytes: bytes, path: path, limits: limits)
        } catch {
            throw PolicyLoadError(diagnostics: Self.ordered(error.diagnostics, mainFile: path, unlisted: error.unlisted, firstUnlisted: error.firstUnlisted))
        }
        var resolver = ExtendsResolver(limits: limits, root: self.root, cache: cache)
        let merged = resolver.resolve(root, path: path, chain: [(path, canonicalPath ?? resolver.canonical(path))])
        var decoder = PolicyDecoder()
        let document = decoder.decodeDocument(merged, path: path)
        let diagnostics = Self.ordered(
            resolver.diagnostics + decoder.reader.diagnostics, mainFile: path,
            unlisted: decoder.reader.suppressed, firstUnlisted: decoder.reader.firstSuppressed)
        guard diagnostics.isEmpty, let document else {
            throw PolicyLoadError(diagnostics: diagnostics)
        }
        return document
    }

    func policy(from document: PolicyDocument, path: String) throws(PolicyLoadError) -> Policy {
        switch document {
        case .policy(let policy): return policy
        case .stack(let stack):
            throw PolicyLoadError(Diagnostic(
                .wrongDocumentKind, at: stack.location ?? SourceLocation(file: path, line: 1, column: 1),
                "expected a policy file, found a stack file (it has 'stack')",
                suggestion: "load it with loadDocument, or lint it as a stack"))
        }
    }

    /// The file's own diagnostics first, in line order, then those of the
    /// files it extends; without duplicates; at most
    /// ``maximumDiagnostics``, then one line saying how many more there are.
    static func ordered(_ diagnostics: [Diagnostic], mainFile: String, unlisted: Int = 0, firstUnlisted: Diagnostic? = nil) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        let unique = diagnostics.filter { seen.insert($0).inserted }
        let sorted = unique.enumerated().sorted { lhs, rhs in
            let lhsMain = lhs.element.location.file == mainFile
            let rhsMain = rhs.element.location.file == mainFile
            if lhsMain != rhsMain { return lhsMain }
            if lhs.element.location != rhs.element.location { return lhs.element.location < rhs.element.location }
            return lhs.offset < rhs.offset
        }.map(\.element)
        let hidden = max(0, sorted.count - maximumDiagnostics) + unlisted
        guard hidden > 0, var summary = sorted.count > maximumDiagnostics ? sorted[maximumDiagnostics] : firstUnlisted else {
            return sorted
        }
        var shown = Array(sorted.prefix(maximumDiagnostics))
        summary.message = "stopped after \(shown.count) problems; \(hidden) more not listed"
        summary.suggestion = nil
        shown.append(summary)
        return shown
    }

    /// Past this many problems a file is not a policy with mistakes but
    /// something else; listing everything would only flood the terminal.
    static let maximumDiagnostics = 100
}
