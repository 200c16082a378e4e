import Atomics
import Logging
import Metrics
import RetryPolicyCore
import RetryPolicyYAML

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A directory of policies, served to any number of concurrent readers and
/// reloaded when the files change (or on demand).
///
/// Readers call ``decider(named:)`` (or take a whole ``snapshot``) on every
/// request; a reload builds a new immutable ``Snapshot`` off to the side and
/// swaps it in with one atomic reference store. Readers take no lock at all
/// (one atomic load), so they never wait for file I/O, parsing or each
/// other, and each reader sees one consistent generation.
///
/// An edit that does not load never replaces the last good policy of that
/// file: the store keeps serving it and reports the file's located
/// diagnostics (``Snapshot/problems``, the log, and the `onProblems`
/// callback) until the file is fixed.
///
/// A file that disappears is not dropped at once: under ``watch(debounce:rescanEvery:pollingFallback:)``
/// its policy stays in service until the file has been absent for a whole
/// quiet period and a re-read of the directory confirms it (so a deploy
/// that deletes and recreates files or the whole directory never shows a
/// gap); then the removal is applied and reported. ``reload(force:)`` on
/// demand applies removals at once.
///
/// A policy whose content did not change keeps its decider, so its retry
/// budget and cooldown survive reloads; a changed policy gets a new one.
///
/// ``watch(debounce:rescanEvery:pollingFallback:)`` reloads on file-system
/// events (inotify on Linux) and falls back to polling where events are not
/// available; ``events()`` tells what the store does, for logs, metrics and
/// tests.
public final class PolicyStore: Sendable {
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

    /// What one reload did.
    public struct ReloadReport: Hashable, Sendable {
        public var added: [String] = []
        public var changed: [String] = []
        public var removed: [String] = []
        /// Policies whose file is absent but which stay in service until
        /// the absence is confirmed a quiet period later; they are then
        /// ``removed`` (or served again if the file came back).
        public var pendingRemovals: [String] = []
        /// Problems found in this reload (including files that still fail).
        public var problems: [PolicyFileProblem] = []
        /// Whether the directory differed from the last reload at all.
        public var filesChanged = false
        /// Files not read by this reload because they changed less than a
        /// quiet period ago or while they were read: a writer may be
        /// half-way through them. Their previous version stays in service;
        /// a watch reads them again once they are quiet.
        public var deferred: [String] = []
        /// What started this reload.
        public var cause: ReloadCause = .onDemand
        /// The reload's place in the store's sequence of reloads.
        var sequence = 0
        /// When the earliest of ``deferred`` is due to be read again.
        var recheckAfter: Duration?
    }

    /// What started a reload.
    public enum ReloadCause: String, Hashable, Sendable {
        /// The store's creation.
        case initial
        /// A call of ``PolicyStore/reload(force:)``.
        case onDemand = "on_demand"
        /// File-system events, after the quiet period.
        case fileEvent = "file_event"
        /// The slow safety re-scan of an event-driven watch, for file
        /// systems that miss events.
        case rescan
        /// A watch (re-)established: catches changes made while there was
        /// none.
        case watchStarted = "watch_started"
        /// Polling, requested or as the fallback.
        case poll
        /// A quiet period after files disappeared: re-reads the directory
        /// and applies the removals it confirms.
        case removalCheck = "removal_check"
    }

    /// How a reload treats files that are no longer in the directory.
    enum Removals {
        /// Dropped now (the store's creation, ``PolicyStore/reload(force:)``).
        case immediate
        /// Kept in service and marked; a file still absent whose mark was
        /// made by reload `confirmingUpTo` or earlier is dropped.
        case deferred(confirmingUpTo: Int?)
    }

    private struct FileState {
        var contents: String
        var policy: Policy?
        var problem: PolicyFileProblem?
        /// The reload that first found the file absent, while its policy
        /// stays in service; `nil` while the file is there.
        var missingSince: Int?
    }

    private struct ReloadState {
        var files: [String: FileState] = [:]
        var generation = 0
        /// Counts every reload, for marking absent files.
        var sequence = 0
        /// Set while the directory itself cannot be listed, or could
        /// not be read whole.
        var directoryProblem: PolicyFileProblem?
    }

    public let directory: String
    private let loader: PolicyFileLoader
    let logger: Logger
    private let onProblems: (@Sendable ([PolicyFileProblem]) -> Void)?
    /// The served generation, behind an atomic reference: readers load it
    /// without locking, a reload replaces it whole.
    private let current: ManagedAtomic<SnapshotReference>
    /// Serialises reloads; readers never touch it.
    private let reloading = LockedValue(ReloadState())
    /// Subscribers of ``events()``.
    private let subscribers = LockedValue(Subscribers())
    /// What ``watchMode`` returns.
    let currentWatchMode = LockedValue(WatchMode.notWatching)
    /// What ``health`` reports besides the snapshot; never held during I/O.
    let healthState = LockedValue(HealthState())
    /// `nil` when no metrics backend is bootstrapped or given.
    let gauges: StoreGauges?

    private struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
    }

    /// Loads every policy in `directory` (files ending in `.yaml` or `.yml`,
    /// except `*.tests.yaml` policy tests). Files that fail to load are
    /// reported, not fatal: the store starts with the others.
    public init(
        directory: String,
        loader: PolicyFileLoader,
        logger: Logger = Logger(label: "retry-policy.store"),
        onProblems: (@Sendable ([PolicyFileProblem]) -> Void)? = nil,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.directory = directory
        self.loader = loader
        self.logger = logger
        self.onProblems = onProblems
        self.gauges = metricsFactory is NOOPMetricsHandler ? nil : StoreGauges(directory: directory, factory: metricsFactory)
        self.current = ManagedAtomic(
            SnapshotReference(
                Snapshot(deciders: [:], paths: [:], problems: [:], generation: 0, pendingRemovals: []), lastChange: nil,
                staleSince: nil))
        reload(cause: .initial, removals: .immediate)
    }

    // MARK: Reading

    /// The current generation.
    public var snapshot: Snapshot { current.load(ordering: .acquiring).snapshot }

    /// The current generation with what health says of it.
    var published: SnapshotReference { current.load(ordering: .acquiring) }

    /// The current decider for the policy `name`.
    public func decider(named name: String) -> RetryDecider? {
        current.load(ordering: .acquiring).snapshot.deciders[name]
    }

    // MARK: Reloading

    /// Re-reads the directory and swaps in a new generation if any file
    /// changed (or if `force`).
    ///
    /// A directory that cannot be listed (deleted, moved away, not mounted
    /// yet) is a problem, not an empty directory: the policies loaded before
    /// stay in service and ``Snapshot/problems`` has an entry for the
    /// directory until it is back.
    ///
    /// A file deleted since the last reload is removed by this call (the
    /// caller says the directory is as it should be); a watch instead waits
    /// for the absence to be confirmed.
    @discardableResult
    public func reload(force: Bool = false) -> ReloadReport {
        reload(force: force, cause: .onDemand, removals: .immediate)
    }

    @discardableResult
    func reload(force: Bool = false, cause: ReloadCause, removals: Removals, quiet: Duration? = nil) -> ReloadReport {
        let now = Date()
        let report = reloading.withLock { state in
            let report = reload(force: force, cause: cause, removals: removals, quiet: quiet, now: now, state: &state)
            let reference = current.load(ordering: .acquiring)
            if cause == .initial && reference.lastChange == nil {
                // An empty directory: the store's first generation all the same.
                current.store(reference.next(reference.snapshot, changed: true, at: now), ordering: .releasing)
            }
            publish(.reloaded(report))
            return report
        }
        recordHealth(after: report, at: now)
        return report
    }

    /// How many times one reload reads the directory when its atomic
    /// writer swapped it during the read, before it keeps the previous
    /// generation and reports the directory.
    static let readAttempts = 5

    /// What one pass over the directory read.
    private struct DirectoryRead {
        /// The files read, loaded if anything changed.
        var files: [String: FileState] = [:]
        var filesChanged = false
        /// Files not read this time (still being written), with the
        /// previous state kept for those that had one.
        var held: [String: FileState] = [:]
        var deferred: [String] = []
        var recheckAfter: Duration?
        var problems: [PolicyFileProblem] = []
    }

    private func reload(
        force: Bool, cause: ReloadCause, removals: Removals, quiet: Duration?, now: Date, state: inout ReloadState
    ) -> ReloadReport {
        state.sequence += 1
        var report = ReloadReport(cause: cause, sequence: state.sequence)
        for _ in 0..<Self.readAttempts {
            let links = AtomicWriterLinks.of(directory: directory)
            guard let listing = Self.policyFiles(in: directory) else {
                return directoryUnreadable(report: report, now: now, state: &state)
            }
            let pass = readFiles(listing, force: force, removals: removals, quiet: quiet, state: state)
            // A swap during the read may have mixed two generations: read
            // again, all of it.
            guard AtomicWriterLinks.of(directory: directory) == links else { continue }
            return apply(pass, force: force, now: now, report: &report, state: &state)
        }
        return swappedDuringEveryRead(report: report, now: now, state: &state)
    }

    /// Reads the listed files. With `quiet` (a watch's reload), a file
    /// that changed less than `quiet` ago is not read: a writer may be
    /// half-way through it; its previous version is kept and the read is
    /// due again once the file is quiet. A file that changed while it was
    /// read is kept at its previous version too.
    private func readFiles(
        _ listing: (root: PolicyRoot, files: [String]), force: Bool, removals: Removals, quiet: Duration?,
        state: ReloadState
    ) -> DirectoryRead {
        // Back from a directory problem: a new generation without it.
        let force = force || state.directoryProblem != nil
        var result = DirectoryRead()
        func hold(_ path: String, recheckAfter delay: Duration) {
            if let previous = state.files[path] { result.held[path] = previous }
            result.deferred.append(path)
            result.recheckAfter = min(result.recheckAfter ?? delay, delay)
        }
        var contents: [String: String] = [:]
        var statuses: [String: PolicyFileStatus?] = [:]
        for path in listing.files {
            let status = PolicyFileStatus.of(path)
            // Files an atomic writer published through `..data` were
            // complete before the swap; holding some of them back would
            // serve a mix of two generations. A file that never stays
            // unchanged for a quiet period has no moment at which it is
            // known to be whole: it keeps its last good version.
            if let quiet, let status, status.age < quiet, !AtomicWriterLinks.isPublished(byDataLink: path) {
                hold(path, recheckAfter: max(quiet - status.age, .milliseconds(1)))
                continue
            }
            statuses[path] = status
            switch listing.root.readFile(path) {
            case .success(let bytes):
                contents[path] = String(decoding: bytes, as: UTF8.self)
            case .failure(let error):
                // Not read (a link leading out of the directory, a FIFO...):
                // kept as its reason, so the loader reports it and a change
                // of reason counts as a change.
                contents[path] = "\u{0}" + error.description
            }
        }
        // Files gone from the directory: kept (with their last good policy)
        // until a later reload confirms the absence, or dropped now.
        var missing: [String: FileState] = [:]
        for (path, file) in state.files where contents[path] == nil && result.held[path] == nil && file.policy != nil {
            guard case .deferred(let confirmingUpTo) = removals else { continue }
            let mark = file.missingSince ?? state.sequence
            if let confirmingUpTo, mark <= confirmingUpTo { continue }
            var kept = file
            kept.missingSince = mark
            missing[path] = kept
        }
        func unchanged() -> Bool {
            contents.count + missing.count + result.held.count == state.files.count
                && contents.allSatisfy { state.files[$0.key]?.contents == $0.value && state.files[$0.key]?.missingSince == nil }
                && missing.allSatisfy { state.files[$0.key]?.missingSince == $0.value.missingSince }
        }

        // Files may extend one another, so any change reloads them all.
        var loaded: [String: FileState] = [:]
        var problems: [String: PolicyFileProblem] = [:]
        if !unchanged() || force {
            for (path, text) in contents {
                switch loader.load(path) {
                case .success(let policy):
                    loaded[path] = FileState(contents: text, policy: policy, problem: nil)
                case .failure(let problem):
                    loaded[path] = FileState(contents: text, policy: state.files[path]?.policy, problem: problem)
                    problems[path] = problem
                }
            }
        }
        // Which file, how long, when changed: the same after the read, or
        // a writer was at work and what was read may be a prefix.
        for path in contents.keys.sorted() where PolicyFileStatus.of(path) != statuses[path] ?? nil {
            contents[path] = nil
            loaded[path] = nil
            problems[path] = nil
            hold(path, recheckAfter: quiet ?? .milliseconds(1))
        }
        result.filesChanged = !unchanged()
        if result.filesChanged || force {
            result.files = missing.merging(loaded) { $1 }
            result.problems = problems.keys.sorted().map { problems[$0]! }
        }
        result.deferred.sort()
        return result
    }

    private func apply(
        _ read: DirectoryRead, force: Bool, now: Date, report: inout ReloadReport, state: inout ReloadState
    ) -> ReloadReport {
        report.deferred = read.deferred
        report.recheckAfter = read.recheckAfter
        if let problem = state.directoryProblem {
            logger.notice("the policy directory can be read again", metadata: ["path": .shown(problem.path)])
        }
        let reference = current.load(ordering: .acquiring)
        if !read.filesChanged && !force && state.directoryProblem == nil {
            report.pendingRemovals = reference.snapshot.pendingRemovals
            return report
        }
        report.filesChanged = read.filesChanged
        report.problems = read.problems
        var files = read.files.merging(read.held) { $1 }

        let old = reference.snapshot
        var deciders: [String: RetryDecider] = [:]
        var paths: [String: String] = [:]
        var problems: [String: PolicyFileProblem] = [:]
        var pending: [String] = []
        // Files that are there first: a policy that moved to another file
        // is served from that one, not reported as a duplicate.
        let order = files.keys.sorted { (files[$0]!.missingSince != nil ? 1 : 0, $0) < (files[$1]!.missingSince != nil ? 1 : 0, $1) }
        for path in order {
            let file = files[path]!
            if file.missingSince != nil {
                // A policy now served by a file that is there: nothing to keep.
                guard let policy = file.policy, paths[policy.name] == nil else {
                    files[path] = nil
                    continue
                }
                paths[policy.name] = path
                deciders[policy.name] = old.deciders[policy.name] ?? RetryDecider(policy: policy)
                pending.append(policy.name)
                continue
            }
            if let problem = file.problem { problems[path] = problem }
            guard let policy = file.policy else { continue }
            if let other = paths[policy.name] {
                let problem = PolicyFileProblem(
                    path: path,
                    diagnostics: [
                        "\(policy.location?.description ?? path): error: policy name '\(policy.name)' is already used by \(other); this file is ignored"
                    ])
                problems[path] = problem
                report.problems.append(problem)
                continue
            }
            paths[policy.name] = path
            if let existing = old.deciders[policy.name], existing.policy == policy {
                deciders[policy.name] = existing
            } else {
                deciders[policy.name] = RetryDecider(policy: policy)
                if old.deciders[policy.name] == nil { report.added.append(policy.name) } else { report.changed.append(policy.name) }
            }
        }
        report.removed = old.deciders.keys.filter { deciders[$0] == nil }.sorted()
        report.added.sort()
        report.changed.sort()
        report.pendingRemovals = pending.sorted()

        state.files = files
        state.directoryProblem = nil
        state.generation += 1
        let next = Snapshot(
            deciders: deciders, paths: paths, problems: problems, generation: state.generation,
            pendingRemovals: report.pendingRemovals)
        current.store(reference.next(next, changed: report.filesChanged, at: now), ordering: .releasing)

        for problem in report.problems {
            logger.warning(
                "policy file not loaded; the last good version stays in service",
                metadata: ["path": .shown(problem.path), "diagnostics": .shown(problem.description)])
        }
        if !report.added.isEmpty || !report.changed.isEmpty || !report.removed.isEmpty {
            logger.info(
                "policies reloaded",
                metadata: [
                    "added": .shown(report.added), "changed": .shown(report.changed), "removed": .shown(report.removed),
                    "generation": "\(state.generation)",
                ])
        }
        let newlyPending = report.pendingRemovals.filter { !old.pendingRemovals.contains($0) }
        if !newlyPending.isEmpty {
            logger.notice(
                "policy files disappeared; their policies stay in service until the removal is confirmed",
                metadata: ["policies": .shown(newlyPending), "generation": "\(state.generation)"])
        }
        if !report.problems.isEmpty { onProblems?(report.problems) }
        return report
    }

    /// Keeps every policy and reports the directory, once per outage.
    private func directoryUnreadable(report: ReloadReport, now: Date, state: inout ReloadState) -> ReloadReport {
        keepGeneration(
            report: report, now: now, state: &state,
            diagnostic: "the policy directory cannot be listed (it does not exist, is not a directory or is not readable); the policies loaded before stay in service",
            log: "policy directory not readable; the last good policies stay in service")
    }

    /// Keeps every policy and reports the directory: its atomic writer
    /// swapped it during each of ``readAttempts`` reads, so no read saw one
    /// whole generation. The swap's own events bring the next reload.
    private func swappedDuringEveryRead(report: ReloadReport, now: Date, state: inout ReloadState) -> ReloadReport {
        keepGeneration(
            report: report, now: now, state: &state,
            diagnostic: "the policy directory was swapped while it was read, \(Self.readAttempts) times in a row; the policies loaded before stay in service",
            log: "policy directory kept changing while it was read; the last good policies stay in service")
    }

    private func keepGeneration(
        report: ReloadReport, now: Date, state: inout ReloadState, diagnostic: String, log message: Logger.Message
    ) -> ReloadReport {
        var report = report
        let problem = PolicyFileProblem(path: directory, diagnostics: ["\(directory): error: \(diagnostic)"])
        guard state.directoryProblem != problem else { return report }
        state.directoryProblem = problem
        state.generation += 1
        let reference = current.load(ordering: .acquiring)
        let old = reference.snapshot
        var problems = old.problems
        problems[directory] = problem
        let next = Snapshot(
            deciders: old.deciders, paths: old.paths, problems: problems, generation: state.generation,
            pendingRemovals: old.pendingRemovals)
        current.store(reference.next(next, changed: true, at: now), ordering: .releasing)
        report.filesChanged = true
        report.problems = [problem]
        logger.warning(message, metadata: ["path": .shown(directory)])
        onProblems?(report.problems)
        return report
    }

    // MARK: Events

    /// What the store did: every reload (with its cause, also when nothing
    /// changed) and every change of ``watchMode``.
    public enum Event: Hashable, Sendable {
        case reloaded(ReloadReport)
        case watchModeChanged(WatchMode)
    }

    /// A stream of the store's ``Event``s from now on, until the returned
    /// stream is dropped. A slow consumer loses the oldest events beyond
    /// 256; the store never waits for a consumer.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = subscribers.withLock { subscribers in
            defer { subscribers.next += 1 }
            subscribers.continuations[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ event: Event) {
        subscribers.withLock { subscribers in
            for continuation in subscribers.continuations.values { continuation.yield(event) }
        }
    }

    // MARK: Files

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
