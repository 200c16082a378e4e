import Atomics
import RetryPolicyCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PolicyStore {
    /// One consistent generation of the directory.
    public struct Snapshot: Sendable {
        /// Deciders by policy name.
        public let deciders: [String: RetryDecider]
        /// Which file each policy came from.
        public let paths: [String: String]
        /// Files whose current content does not load, with their
        /// diagnostics; a policy from such a file is its last good version.
        public let problems: [String: PolicyFileProblem]
        /// Increases with every reload that changed something.
        public let generation: Int
        /// Policies still served although their file is absent, waiting for
        /// the absence to be confirmed (see ``ReloadReport/pendingRemovals``).
        public let pendingRemovals: [String]

        public var policyNames: [String] { deciders.keys.sorted() }
    }
}

/// An immutable snapshot in a class, so that it can sit behind an atomic
/// reference; with it what ``PolicyStore/health`` says of that very
/// generation, so that health and the served policies never disagree.
final class SnapshotReference: AtomicReference, Sendable {
    let snapshot: PolicyStore.Snapshot
    /// When the served generation last changed.
    let lastChange: Date?
    /// Since when ``snapshot`` has had problems; `nil` while it has none.
    let staleSince: Date?

    init(_ snapshot: PolicyStore.Snapshot, lastChange: Date?, staleSince: Date?) {
        self.snapshot = snapshot
        self.lastChange = lastChange
        self.staleSince = staleSince
    }

    /// The reference that publishes `snapshot` after this one, at `now`.
    func next(_ snapshot: PolicyStore.Snapshot, changed: Bool, at now: Date) -> SnapshotReference {
        SnapshotReference(
            snapshot, lastChange: changed || lastChange == nil ? now : lastChange,
            staleSince: snapshot.problems.isEmpty ? nil : staleSince ?? now)
    }
}
