import RetryPolicyCore

/// One reload of a policy directory, decided without I/O or a clock: from
/// the previous ``PolicyDirectoryState`` and what a read of the directory
/// found (a ``PolicyDirectoryScan``), the next state and the report to
/// publish (policies added, changed, removed or pending removal; files
/// that do not load, whose last good policy stays in service).
///
/// The rules:
/// - Nothing differs from the previous read (same files, same reads, same
///   absences) and the reload is not forced: no new generation, nothing
///   reported.
/// - Files may extend one another, so any difference loads every file read.
/// - A file that does not load keeps its last good policy and reports its
///   problem; a file that never loaded serves nothing.
/// - A file held back (a writer may be half-way through it) keeps its
///   previous state.
/// - A file no longer listed is dropped at once with ``Removals/immediate``;
///   with ``Removals/deferred(confirmingUpTo:)`` its policy stays in service,
///   marked, until a reload confirms the absence.
/// - Two files with one policy name: the first by path serves it, the other
///   is reported; a file that is there comes before an absent one, so a
///   policy moved to another file is served from it.
struct PolicyDirectoryReload: Sendable {
    /// How a reload treats files that are no longer in the directory.
    enum Removals: Sendable {
        /// Dropped now (the store's creation, `PolicyStore.reload(force:)`).
        case immediate
        /// Kept in service and marked; a file still absent whose mark was
        /// made by reload `confirmingUpTo` or earlier is dropped.
        case deferred(confirmingUpTo: Int?)
    }

    /// The state after the reload.
    var next: PolicyDirectoryState
    /// What the reload did; its `cause` is the caller's to set.
    var report: PolicyStore.ReloadReport
    /// Whether ``next`` is a new generation, to be served.
    var publishes: Bool
    /// Policies whose file went missing in this reload (not before).
    var newlyPending: [String] = []

    /// Whether the files `scan` read must be loaded before the reload is
    /// decided: some differ from `previous`, or the reload is forced.
    static func needsLoading(
        _ scan: PolicyDirectoryScan, after previous: PolicyDirectoryState, force: Bool, removals: Removals
    ) -> Bool {
        force || previous.directoryProblem != nil
            || differs(scan, from: previous, missing: missing(scan, previous, removals))
    }

    /// The reload that `scan` makes of `previous`.
    init(_ scan: PolicyDirectoryScan, after previous: PolicyDirectoryState, force: Bool, removals: Removals) {
        var next = previous
        next.sequence += 1
        var report = PolicyStore.ReloadReport(sequence: next.sequence)
        report.deferred = scan.held.keys.sorted()
        report.recheckAfter = scan.held.values.min()
        let missing = Self.missing(scan, previous, removals)
        let changed = Self.differs(scan, from: previous, missing: missing)
        // Back from a directory problem: a new generation without it.
        guard changed || force || previous.directoryProblem != nil else {
            report.pendingRemovals = previous.pendingRemovals
            self.init(next: next, report: report, publishes: false)
            return
        }
        report.filesChanged = changed

        var files = missing
        var problems: [String: PolicyFileProblem] = [:]
        for (path, scanned) in scan.files {
            let last = previous.files[path]
            switch scanned.load {
            case .success(let policy)?:
                files[path] = .init(read: scanned.read, policy: policy)
            case .failure(let problem)?:
                files[path] = .init(read: scanned.read, policy: last?.policy, problem: problem)
                problems[path] = problem
            case nil:
                // Not loaded: what it was stays (a scan loads every file
                // whenever `needsLoading` says so).
                files[path] = .init(read: scanned.read, policy: last?.policy, problem: last?.problem)
            }
        }
        for path in scan.held.keys { files[path] = previous.files[path] }
        report.problems = problems.keys.sorted().map { problems[$0]! }

        next.served = [:]
        next.problems = [:]
        // Files that are there first: a policy that moved to another file
        // is served from that one, not reported as a duplicate.
        let order = files.keys.sorted { (files[$0]!.missingSince != nil ? 1 : 0, $0) < (files[$1]!.missingSince != nil ? 1 : 0, $1) }
        for path in order {
            let file = files[path]!
            if file.missingSince != nil {
                // A policy now served by a file that is there: nothing to keep.
                guard let policy = file.policy, next.served[policy.name] == nil else {
                    files[path] = nil
                    continue
                }
                // What was served under the name goes on being served.
                let kept = previous.served[policy.name]?.policy ?? policy
                next.served[policy.name] = .init(path: path, policy: kept, pending: true)
                continue
            }
            if let problem = file.problem { next.problems[path] = problem }
            guard let policy = file.policy else { continue }
            if let other = next.served[policy.name] {
                let problem = PolicyFileProblem(
                    path: path,
                    diagnostics: [
                        Diagnostic(
                            location: policy.location ?? SourceLocation(file: path, line: 1, column: 1),
                            message: "policy name '\(policy.name)' is already used by \(other.path); this file is ignored")
                    ])
                next.problems[path] = problem
                report.problems.append(problem)
                continue
            }
            next.served[policy.name] = .init(path: path, policy: policy, pending: false)
            if let last = previous.served[policy.name] {
                if last.policy != policy { report.changed.append(policy.name) }
            } else {
                report.added.append(policy.name)
            }
        }
        report.removed = previous.served.keys.filter { next.served[$0] == nil }.sorted()
        report.added.sort()
        report.changed.sort()
        report.pendingRemovals = next.pendingRemovals
        next.files = files
        next.directoryProblem = nil
        next.generation += 1
        let wasPending = Set(previous.pendingRemovals)
        self.init(
            next: next, report: report, publishes: true,
            newlyPending: report.pendingRemovals.filter { !wasPending.contains($0) })
    }

    /// The reload of a directory that could not be read (`problem` says
    /// why): every policy stays in service, and the problem is reported
    /// once per outage.
    init(keeping previous: PolicyDirectoryState, because problem: PolicyFileProblem) {
        var next = previous
        next.sequence += 1
        var report = PolicyStore.ReloadReport(sequence: next.sequence)
        guard previous.directoryProblem != problem else {
            self.init(next: next, report: report, publishes: false)
            return
        }
        next.directoryProblem = problem
        next.generation += 1
        next.problems[problem.path] = problem
        report.filesChanged = true
        report.problems = [problem]
        self.init(next: next, report: report, publishes: true)
    }

    private init(next: PolicyDirectoryState, report: PolicyStore.ReloadReport, publishes: Bool, newlyPending: [String] = []) {
        self.next = next
        self.report = report
        self.publishes = publishes
        self.newlyPending = newlyPending
    }

    /// The files of `previous` that `scan` did not find and that stay in
    /// service, marked with the reload that first missed them.
    private static func missing(
        _ scan: PolicyDirectoryScan, _ previous: PolicyDirectoryState, _ removals: Removals
    ) -> [String: PolicyDirectoryState.File] {
        guard case .deferred(let confirmingUpTo) = removals else { return [:] }
        var missing: [String: PolicyDirectoryState.File] = [:]
        for (path, file) in previous.files
        where scan.files[path] == nil && scan.held[path] == nil && file.policy != nil {
            let mark = file.missingSince ?? previous.sequence + 1
            if let confirmingUpTo, mark <= confirmingUpTo { continue }
            var kept = file
            kept.missingSince = mark
            missing[path] = kept
        }
        return missing
    }

    /// Whether `scan` (with `missing`, the absent files kept) differs from
    /// what `previous` knew: a file added, gone, read differently, or
    /// absent since another reload.
    private static func differs(
        _ scan: PolicyDirectoryScan, from previous: PolicyDirectoryState, missing: [String: PolicyDirectoryState.File]
    ) -> Bool {
        let held = scan.held.keys.filter { previous.files[$0] != nil }.count
        return scan.files.count + missing.count + held != previous.files.count
            || scan.files.contains { path, scanned in
                previous.files[path]?.read != scanned.read || previous.files[path]?.missingSince != nil
            }
            || missing.contains { path, file in previous.files[path]?.missingSince != file.missingSince }
    }
}
