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
    public let directory: String
    private let reader: PolicyDirectoryReader
    let logger: Logger
    private let onProblems: (@Sendable ([PolicyFileProblem]) -> Void)?
    /// The served generation, behind an atomic reference: readers load it
    /// without locking, a reload replaces it whole.
    private let current: ManagedAtomic<SnapshotReference>
    /// Serialises reloads; readers never touch it.
    private let reloading = LockedValue(PolicyDirectoryState())
    /// Subscribers of ``events()``.
    let subscribers = LockedValue(EventSubscribers())
    /// What ``watchMode`` returns.
    let currentWatchMode = LockedValue(WatchMode.notWatching)
    /// What ``health`` reports besides the snapshot; never held during I/O.
    let healthState = LockedValue(HealthState())
    /// `nil` when no metrics backend is bootstrapped or given.
    let gauges: StoreGauges?

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
        self.reader = PolicyDirectoryReader(directory: directory, loader: loader)
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

    /// Reads the directory (`PolicyDirectoryReader`), decides the reload
    /// (`PolicyDirectoryReload`) and serves, logs and publishes it.
    @discardableResult
    func reload(
        force: Bool = false, cause: ReloadCause, removals: PolicyDirectoryReload.Removals, quiet: Duration? = nil
    ) -> ReloadReport {
        let now = Date()
        let report = reloading.withLock { state in
            let reload: PolicyDirectoryReload
            let outcome = reader.scan(after: state, force: force, removals: removals, quiet: quiet)
            switch outcome {
            case .scanned(let scan):
                reload = PolicyDirectoryReload(scan, after: state, force: force, removals: removals)
            case .unlistable:
                reload = PolicyDirectoryReload(
                    keeping: state,
                    because: directoryProblem(
                        "the policy directory cannot be listed (it does not exist, is not a directory or is not readable); the policies loaded before stay in service"))
            case .swappedDuringEveryRead:
                reload = PolicyDirectoryReload(
                    keeping: state,
                    because: directoryProblem(
                        "the policy directory was swapped while it was read, \(PolicyDirectoryReader.readAttempts) times in a row; the policies loaded before stay in service"))
            }
            let recovered = state.directoryProblem
            state = reload.next
            var report = reload.report
            report.cause = cause
            let reference = current.load(ordering: .acquiring)
            if reload.publishes {
                current.store(
                    reference.next(serving(reload.next, after: reference.snapshot), changed: report.filesChanged, at: now),
                    ordering: .releasing)
            }
            logReload(reload, of: outcome, recoveredFrom: recovered)
            if !reload.publishes && cause == .initial && reference.lastChange == nil {
                // An empty directory: the store's first generation all the same.
                current.store(reference.next(reference.snapshot, changed: true, at: now), ordering: .releasing)
            }
            if reload.publishes && !report.problems.isEmpty { onProblems?(report.problems) }
            publish(.reloaded(report))
            return report
        }
        recordHealth(after: report, at: now)
        return report
    }

    /// The snapshot that serves `state`. A policy whose content did not
    /// change keeps its decider (and with it its budget and cooldown).
    private func serving(_ state: PolicyDirectoryState, after old: Snapshot) -> Snapshot {
        var deciders: [String: RetryDecider] = [:]
        var paths: [String: String] = [:]
        for (name, served) in state.served {
            paths[name] = served.path
            if let existing = old.deciders[name], existing.policy == served.policy {
                deciders[name] = existing
            } else {
                deciders[name] = RetryDecider(policy: served.policy)
            }
        }
        return Snapshot(
            deciders: deciders, paths: paths, problems: state.problems, generation: state.generation,
            pendingRemovals: state.pendingRemovals)
    }

    private func directoryProblem(_ message: String) -> PolicyFileProblem {
        PolicyFileProblem(path: directory, message: message)
    }

    private func logReload(
        _ reload: PolicyDirectoryReload, of outcome: PolicyDirectoryReader.Outcome, recoveredFrom problem: PolicyFileProblem?
    ) {
        switch outcome {
        case .scanned:
            if let problem {
                logger.notice("the policy directory can be read again", metadata: ["path": .shown(problem.path)])
            }
        case .unlistable where reload.publishes:
            logger.warning("policy directory not readable; the last good policies stay in service", metadata: ["path": .shown(directory)])
            return
        case .swappedDuringEveryRead where reload.publishes:
            logger.warning(
                "policy directory kept changing while it was read; the last good policies stay in service",
                metadata: ["path": .shown(directory)])
            return
        case .unlistable, .swappedDuringEveryRead:
            return
        }
        guard reload.publishes else { return }
        let report = reload.report
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
                    "generation": "\(reload.next.generation)",
                ])
        }
        if !reload.newlyPending.isEmpty {
            logger.notice(
                "policy files disappeared; their policies stay in service until the removal is confirmed",
                metadata: ["policies": .shown(reload.newlyPending), "generation": "\(reload.next.generation)"])
        }
    }
}
