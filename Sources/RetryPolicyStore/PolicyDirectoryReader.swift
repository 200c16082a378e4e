import RetryPolicyCore
import RetryPolicyYAML

/// The I/O of a reload: lists the policy directory, reads its files
/// through the confined reader, loads them when something changed, and
/// checks that no writer was at work meanwhile. What it finds is a
/// ``PolicyDirectoryScan``; ``PolicyDirectoryReload`` decides what to do
/// with it.
struct PolicyDirectoryReader: Sendable {
    let directory: String
    let loader: PolicyFileLoader

    /// How many times one reload reads the directory when its atomic
    /// writer swapped it during the read, before it keeps the previous
    /// generation and reports the directory.
    static let readAttempts = 5

    enum Outcome {
        case scanned(PolicyDirectoryScan)
        /// The directory cannot be listed (deleted, moved away, not
        /// mounted yet).
        case unlistable
        /// Its atomic writer swapped it during each of ``readAttempts``
        /// reads, so no read saw one whole generation.
        case swappedDuringEveryRead
    }

    /// Reads the directory. With `quiet` (a watch's reload), a file that
    /// changed less than `quiet` ago is not read: a writer may be half-way
    /// through it. A file that changed while it was read or loaded is held
    /// back too. `previous`, `force` and `removals` say whether anything
    /// needs loading.
    func scan(
        after previous: PolicyDirectoryState, force: Bool, removals: PolicyDirectoryReload.Removals, quiet: Duration?
    ) -> Outcome {
        for _ in 0..<Self.readAttempts {
            let links = AtomicWriterLinks.of(directory: directory)
            guard let listing = Self.policyFiles(in: directory) else { return .unlistable }
            let scan = read(listing, after: previous, force: force, removals: removals, quiet: quiet)
            // A swap during the read may have mixed two generations: read
            // again, all of it.
            guard AtomicWriterLinks.of(directory: directory) == links else { continue }
            return .scanned(scan)
        }
        return .swappedDuringEveryRead
    }

    private func read(
        _ listing: (root: PolicyRoot, files: [String]), after previous: PolicyDirectoryState, force: Bool,
        removals: PolicyDirectoryReload.Removals, quiet: Duration?
    ) -> PolicyDirectoryScan {
        var scan = PolicyDirectoryScan()
        var statuses: [String: PolicyFileStatus?] = [:]
        for path in listing.files {
            let status = PolicyFileStatus.of(path)
            // Files an atomic writer published through `..data` were
            // complete before the swap; holding some of them back would
            // serve a mix of two generations. A file that never stays
            // unchanged for a quiet period has no moment at which it is
            // known to be whole: it keeps its last good version.
            if let quiet, let status, status.age < quiet, !AtomicWriterLinks.isPublished(byDataLink: path) {
                scan.hold(path, recheckAfter: max(quiet - status.age, .milliseconds(1)))
                continue
            }
            statuses[path] = status
            scan.files[path] = .init(read: PolicyFileRead(listing.root.readFile(path)))
        }
        if PolicyDirectoryReload.needsLoading(scan, after: previous, force: force, removals: removals) {
            for path in scan.files.keys { scan.files[path]?.load = loader.load(path) }
        }
        // Which file, how long, when changed: the same after the read and
        // the load, or a writer was at work and what was read may be a
        // prefix.
        for path in scan.files.keys.sorted() where PolicyFileStatus.of(path) != statuses[path] ?? nil {
            scan.hold(path, recheckAfter: quiet ?? .milliseconds(1))
        }
        return scan
    }

    static func isPolicyFile(_ name: String) -> Bool {
        PolicyFileName.isYAML(name) && !PolicyFileName.isTestFile(name) && !name.hasPrefix(".")
    }

    /// The policy files of `directory` and the root confining them to it
    /// (resolved anew each time: the directory may be a link that a
    /// deployment switches); `nil` if it cannot be listed.
    static func policyFiles(in directory: String) -> (root: PolicyRoot, files: [String])? {
        guard let root = try? PolicyRoot(directory: directory),
            let names = root.fileSystem.names(inDirectoryAt: root.path)
        else { return nil }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return (root, names.filter(isPolicyFile).sorted().map { base + $0 })
    }
}
