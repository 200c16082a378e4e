import RetryPolicyCore

/// What one run (a lint of a repository) has loaded, so that a file many
/// others name (an extended base, a parity partner, a stack layer) is
/// parsed and decoded once per run instead of once per reference.
///
/// Only parsing and decoding are shared. Every reference is still resolved
/// and read through the ``PolicyRoot`` with all its checks (inside the
/// root, not in `.git`, not a special file, named `*.yaml`/`*.yml` when
/// referenced, within the size limit) before the cache is consulted, so a
/// cached entry is never used for a reference that could not read the
/// file itself. Entries are keyed by the canonical path the root resolved
/// and by the path as spelt (locations and messages use the spelling), and
/// keep the bytes they were made from: a file whose bytes changed during
/// the run is loaded again.
///
/// A cache belongs to one loader configuration (root and limits); it is
/// safe to share between threads.
public final class PolicyLoadCache: Sendable {
    struct Key: Hashable {
        var canonicalPath: String
        var spelling: String
        var limits: YAMLLimits
    }

    private struct Entry<Value: Sendable>: Sendable {
        var bytes: [UInt8]
        var value: Value
    }

    private let documents = LockedValue<[Key: Entry<Result<PolicyDocument, PolicyLoadError>>]>([:])
    private let trees = LockedValue<[Key: Entry<Result<YAMLNode?, PolicyLoadError>>]>([:])
    /// How many documents and trees were made rather than reused.
    let misses = LockedValue((documents: 0, trees: 0))

    public init() {}

    /// The loaded document of `bytes` under `key`, made by `load` the first
    /// time.
    func document(
        _ key: Key, bytes: [UInt8], load: () -> Result<PolicyDocument, PolicyLoadError>
    ) -> Result<PolicyDocument, PolicyLoadError> {
        if let entry = documents.withLock({ $0[key] }), entry.bytes == bytes { return entry.value }
        let value = load()
        documents.withLock { $0[key] = Entry(bytes: bytes, value: value) }
        misses.withLock { $0.documents += 1 }
        return value
    }

    /// The document already loaded from `bytes` under `key`, if it loaded
    /// without problems; nothing is loaded here.
    func loadedDocument(_ key: Key, bytes: [UInt8]) -> PolicyDocument? {
        guard let entry = documents.withLock({ $0[key] }), entry.bytes == bytes, case .success(let document) = entry.value else {
            return nil
        }
        return document
    }

    /// The parsed tree of `bytes` under `key` (an extended file before its
    /// own `extends` is resolved), made by `parse` the first time.
    func tree(
        _ key: Key, bytes: [UInt8], parse: () -> Result<YAMLNode?, PolicyLoadError>
    ) -> Result<YAMLNode?, PolicyLoadError> {
        if let entry = trees.withLock({ $0[key] }), entry.bytes == bytes { return entry.value }
        let value = parse()
        trees.withLock { $0[key] = Entry(bytes: bytes, value: value) }
        misses.withLock { $0.trees += 1 }
        return value
    }
}

extension PolicyRoot {
    /// A file read through the root, with the canonical path it resolved to.
    package struct ReadFile: Sendable {
        package var canonicalPath: String
        package var bytes: [UInt8]
    }

    /// ``readFile(_:limits:)``, with the canonical path.
    package func readLocatedFile(_ path: String, limits: YAMLLimits = .default) -> Result<ReadFile, PolicyLoadError> {
        PolicyFileReader.readLocated(path, root: self, limits: limits)
    }

    /// ``readReferencedFile(_:reportedAt:limits:)``, with the canonical path.
    package func readLocatedReferencedFile(
        _ path: String, reportedAt location: SourceLocation, limits: YAMLLimits = .default
    ) -> Result<ReadFile, PolicyLoadError> {
        PolicyFileReader.readLocated(path, root: self, limits: limits, purpose: .referenced, reportedAt: location)
    }
}

extension PolicyLoader {
    /// Loads a policy or stack file read through the root
    /// (``PolicyRoot/readLocatedFile(_:limits:)``); `path` names it in
    /// messages and anchors relative references. With a ``cache``, a file
    /// already loaded in this run under the same canonical path, spelling
    /// and bytes is not parsed again.
    package func loadDocument(_ file: PolicyRoot.ReadFile, path: String) throws(PolicyLoadError) -> PolicyDocument {
        guard let cache else { return try loadDocument(bytes: file.bytes, path: path, canonicalPath: file.canonicalPath) }
        let key = PolicyLoadCache.Key(canonicalPath: file.canonicalPath, spelling: path, limits: limits)
        let result = cache.document(key, bytes: file.bytes) {
            do throws(PolicyLoadError) {
                return .success(try loadDocument(bytes: file.bytes, path: path, canonicalPath: file.canonicalPath))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The policy this run already loaded from `file` under `path`
    /// without problems, if it did: a reference to it needs neither
    /// parsing nor sniffing for another format. `nil` without a cache.
    package func loadedPolicy(_ file: PolicyRoot.ReadFile, path: String) -> Policy? {
        let key = PolicyLoadCache.Key(canonicalPath: file.canonicalPath, spelling: path, limits: limits)
        guard case .policy(let policy)? = cache?.loadedDocument(key, bytes: file.bytes) else { return nil }
        return policy
    }

    /// ``loadDocument(_:path:)`` for a policy; a stack file is an error.
    package func loadPolicy(_ file: PolicyRoot.ReadFile, path: String) throws(PolicyLoadError) -> Policy {
        try policy(from: loadDocument(file, path: path), path: path)
    }
}
