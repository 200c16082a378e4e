import Atomics
import Logging
import RetryPolicyCore
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A directory of policies, served to any number of concurrent readers and
/// reloaded when the files change.
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
/// callback) until the file is fixed. Deleting a file removes its policy.
///
/// A policy whose content did not change keeps its decider, so its retry
/// budget and cooldown survive reloads; a changed policy gets a new one.
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

        public var policyNames: [String] { deciders.keys.sorted() }
    }

    /// What one reload did.
    public struct ReloadReport: Hashable, Sendable {
        public var added: [String] = []
        public var changed: [String] = []
        public var removed: [String] = []
        /// Problems found in this reload (including files that still fail).
        public var problems: [PolicyFileProblem] = []
        /// Whether the directory differed from the last reload at all.
        public var filesChanged = false
    }

    private struct FileState {
        var contents: String
        var policy: Policy?
        var problem: PolicyFileProblem?
    }

    private struct ReloadState {
        var files: [String: FileState] = [:]
        var generation = 0
    }

    public let directory: String
    private let loader: PolicyFileLoader
    private let logger: Logger
    private let onProblems: (@Sendable ([PolicyFileProblem]) -> Void)?
    /// The served generation, behind an atomic reference: readers load it
    /// without locking, a reload replaces it whole.
    private let current: ManagedAtomic<SnapshotReference>
    /// Serialises reloads; readers never touch it.
    private let reloading = Mutex(ReloadState())

    /// Loads every policy in `directory` (files ending in `.yaml` or `.yml`,
    /// except `*.tests.yaml` policy tests). Files that fail to load are
    /// reported, not fatal: the store starts with the others.
    public init(
        directory: String,
        loader: PolicyFileLoader,
        logger: Logger = Logger(label: "retry-policy.store"),
        onProblems: (@Sendable ([PolicyFileProblem]) -> Void)? = nil
    ) {
        self.directory = directory
        self.loader = loader
        self.logger = logger
        self.onProblems = onProblems
        self.current = ManagedAtomic(SnapshotReference(Snapshot(deciders: [:], paths: [:], problems: [:], generation: 0)))
        reload()
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
    @discardableResult
    public func reload(force: Bool = false) -> ReloadReport {
        reloading.withLock { state in
            var report = ReloadReport()
            let listing = Self.policyFiles(in: directory)
            var contents: [String: String] = [:]
            for path in listing {
                if let text = Self.read(path) { contents[path] = text }
            }
            let unchanged = contents.count == state.files.count
                && contents.allSatisfy { state.files[$0.key]?.contents == $0.value }
            if unchanged && !force { return report }
            report.filesChanged = !unchanged

            // Files may extend one another, so any change reloads them all.
            var files: [String: FileState] = [:]
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
            for path in files.keys.sorted() {
                let file = files[path]!
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

            state.files = files
            state.generation += 1
            let next = Snapshot(deciders: deciders, paths: paths, problems: problems, generation: state.generation)
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
            if !report.problems.isEmpty { onProblems?(report.problems) }
            return report
        }
    }

    /// Polls the directory every `interval` on `clock` and reloads on
    /// change, until the calling task is cancelled. Polling works on every
    /// platform and file system (including mounted config maps, where
    /// change notifications are unreliable).
    public func watch<C: Clock>(every interval: Duration, clock: C) async where C.Duration == Duration {
        while !Task.isCancelled {
            do { try await clock.sleep(for: interval) } catch { return }
            reload()
        }
    }

    /// ``watch(every:clock:)`` on the continuous clock.
    public func watch(every interval: Duration) async {
        await watch(every: interval, clock: ContinuousClock())
    }

    // MARK: Files

    static func isPolicyFile(_ name: String) -> Bool {
        (name.hasSuffix(".yaml") || name.hasSuffix(".yml")) && !name.hasSuffix(".tests.yaml")
            && !name.hasSuffix(".tests.yml") && !name.hasPrefix(".")
    }

    static func policyFiles(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return names.filter(isPolicyFile).sorted().map { base + $0 }
    }

    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// An immutable snapshot in a class, so that it can sit behind an atomic
/// reference.
final class SnapshotReference: AtomicReference, Sendable {
    let snapshot: PolicyStore.Snapshot

    init(_ snapshot: PolicyStore.Snapshot) { self.snapshot = snapshot }
}
