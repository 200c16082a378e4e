import RetryPolicyCore

/// What a store knows of its directory after a reload: each file as last
/// read, the policies served and from which file, the problems reported.
///
/// A plain value: ``PolicyDirectoryReload`` computes the next one from
/// this one and what a read of the directory found, and the store turns it
/// into the `PolicyStore.Snapshot` it serves.
struct PolicyDirectoryState: Equatable, Sendable {
    /// One policy file as the store last knew it.
    struct File: Equatable, Sendable {
        /// What the last read of the file gave.
        var read: PolicyFileRead
        /// The policy served for the file: the one it loaded to, or its
        /// last good one while its current content does not load.
        var policy: Policy?
        /// Why the current content does not load.
        var problem: PolicyFileProblem?
        /// The reload that first found the file absent, while its policy
        /// stays in service; `nil` while the file is there.
        var missingSince: Int?
    }

    /// A policy in service.
    struct Served: Equatable, Sendable {
        /// The file it is served from.
        var path: String
        var policy: Policy
        /// Its file is absent and the removal is not confirmed yet.
        var pending: Bool
    }

    var files: [String: File] = [:]
    /// The policies in service, by name.
    var served: [String: Served] = [:]
    /// Files (and the directory) with a problem, by path.
    var problems: [String: PolicyFileProblem] = [:]
    /// Increases with every reload that changed what is served.
    var generation = 0
    /// Counts every reload, for marking absent files.
    var sequence = 0
    /// Set while the directory itself cannot be listed, or could not be
    /// read whole.
    var directoryProblem: PolicyFileProblem?

    /// Policies served although their file is absent.
    var pendingRemovals: [String] { served.filter(\.value.pending).keys.sorted() }
}
