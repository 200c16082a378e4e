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
        /// What started this reload.
        public var cause: ReloadCause = .onDemand
        /// The reload's place in the store's sequence of reloads.
        var sequence = 0
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
        /// Set while the directory itself cannot be listed.
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
            SnapshotReference(Snapshot(deciders: [:], paths: [:], problems: [:], generation: 0, pendingRemovals: [])))
        reload(cause: .initial, removals: .immediate)
    }

    // MARK: Reading

    /// The current generation.
    public var snapshot: Snapshot { current.load(ordering: .acquiring).snapshot }

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
    func reload(force: Bool = false, cause: ReloadCause, removals: Removals) -> ReloadReport {
        let report = reloading.withLock { state in
            let report = reload(force: force, cause: cause, removals: removals, state: &state)
            publish(.reloaded(report))
            return report
        }
        recordHealth(after: report)
        return report
    }

    private func reload(force: Bool, cause: ReloadCause, removals: Removals, state: inout ReloadState) -> ReloadReport {
        state.sequence += 1
        var report = ReloadReport(cause: cause, sequence: state.sequence)
        guard let listing = Self.policyFiles(in: directory) else {
            return directoryUnreadable(report: report, state: &state)
        }
        var contents: [String: String] = [:]
        for path in listing.files {
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
        for (path, file) in state.files where contents[path] == nil && file.policy != nil {
            guard case .deferred(let confirmingUpTo) = removals else { continue }
            let mark = file.missingSince ?? state.sequence
            if let confirmingUpTo, mark <= confirmingUpTo { continue }
            var kept = file
            kept.missingSince = mark
            missing[path] = kept
        }
        let unchanged = contents.count + missing.count == state.files.count
            && contents.allSatisfy { state.files[$0.key]?.contents == $0.value && state.files[$0.key]?.missingSince == nil }
            && missing.allSatisfy { state.files[$0.key]?.missingSince == $0.value.missingSince }
        if let problem = state.directoryProblem {
            logger.notice("the policy directory can be read again", metadata: ["path": "\(problem.path)"])
        }
        if unchanged && !force && state.directoryProblem == nil {
            report.pendingRemovals = current.load(ordering: .acquiring).snapshot.pendingRemovals
            return report
        }
        report.filesChanged = !unchanged

        // Files may extend one another, so any change reloads them all.
        var files: [String: FileState] = missing
        for (path, text) in contents {
            let previous = state.files[path]
            switch loader.load(path) {
            case .success(let policy):
                files[path] = FileState(contents: text, policy: policy, problem: nil)
            case .failure(let problem):
                files[path] = FileState(contents: text, policy: previous?.policy, problem: problem)
                report.problems.append(problem)
            }
        }

        let old = current.load(ordering: .acquiring).snapshot
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
        current.store(SnapshotReference(next), ordering: .releasing)

        for problem in report.problems {
            logger.warning(
                "policy file not loaded; the last good version stays in service",
                metadata: ["path": "\(problem.path)", "diagnostics": "\(problem.description)"])
        }
        if !report.added.isEmpty || !report.changed.isEmpty || !report.removed.isEmpty {
            logger.info(
                "policies reloaded",
                metadata: [
                    "added": "\(report.added)", "changed": "\(report.changed)", "removed": "\(report.removed)",
                    "generation": "\(state.generation)",
                ])
        }
        let newlyPending = report.pendingRemovals.filter { !old.pendingRemovals.contains($0) }
        if !newlyPending.isEmpty {
            logger.notice(
                "policy files disappeared; their policies stay in service until the removal is confirmed",
                metadata: ["policies": "\(newlyPending)", "generation": "\(state.generation)"])
        }
        if !report.problems.isEmpty { onProblems?(report.problems) }
        return report
    }

    /// Keeps every policy and reports the directory, once per outage.
    private func directoryUnreadable(report: ReloadReport, state: inout ReloadState) -> ReloadReport {
        var report = report
        guard state.directoryProblem == nil else { return report }
        let problem = PolicyFileProblem(
            path: directory,
            diagnostics: [
                "\(directory): error: the policy directory cannot be listed (it does not exist, is not a directory or is not readable); the policies loaded before stay in service"
            ])
        state.directoryProblem = problem
        state.generation += 1
        let old = current.load(ordering: .acquiring).snapshot
        var problems = old.problems
        problems[directory] = problem
        let next = Snapshot(
            deciders: old.deciders, paths: old.paths, problems: problems, generation: state.generation,
            pendingRemovals: old.pendingRemovals)
        current.store(SnapshotReference(next), ordering: .releasing)
        report.filesChanged = true
        report.problems = [problem]
        logger.warning(
            "policy directory not readable; the last good policies stay in service", metadata: ["path": "\(directory)"])
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
/// reference.
final class SnapshotReference: AtomicReference, Sendable {
    let snapshot: PolicyStore.Snapshot

    init(_ snapshot: PolicyStore.Snapshot) { self.snapshot = snapshot }
}
