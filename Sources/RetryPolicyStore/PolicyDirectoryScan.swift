import RetryPolicyCore

/// What one pass over the policy directory found: the files read, each
/// with what loading it gave, and the files not read this time because a
/// writer may be half-way through them.
///
/// Built by `PolicyDirectoryReader` (the I/O) and consumed by
/// ``PolicyDirectoryReload`` (the decisions); tests build it by hand.
struct PolicyDirectoryScan: Equatable, Sendable {
    /// A file that was read.
    struct ScannedFile: Equatable, Sendable {
        var read: PolicyFileRead
        /// What the loader made of the file; `nil` when it was not loaded
        /// because nothing in the directory changed (see
        /// ``PolicyDirectoryReload/needsLoading(_:after:force:removals:)``).
        /// `.success(nil)`: a valid file that is not a policy.
        var load: Result<Policy?, PolicyFileProblem>?

        init(read: PolicyFileRead, load: Result<Policy?, PolicyFileProblem>? = nil) {
            self.read = read
            self.load = load
        }
    }

    /// The files read, by path.
    var files: [String: ScannedFile] = [:]
    /// The files not read (changed less than a quiet period ago, or while
    /// they were read), each with when to read it again.
    var held: [String: Duration] = [:]

    /// Takes `path` out of the read files and holds it back, to be read
    /// again after `delay` (or sooner, if another hold of it says so).
    mutating func hold(_ path: String, recheckAfter delay: Duration) {
        files[path] = nil
        held[path] = min(held[path] ?? delay, delay)
    }
}
