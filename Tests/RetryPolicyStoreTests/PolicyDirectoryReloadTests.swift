import RetryPolicyCore
@testable import RetryPolicyStore
import Testing

/// Each transition of the reload algorithm, as a plain function of the
/// previous state and a directory that exists only in memory.
@Suite("PolicyDirectoryReload: the next state and report from a read of the directory")
struct PolicyDirectoryReloadTests {
    let base = DirectoryModel.base

    /// The state after loading `directory` into an empty store.
    func loaded(_ directory: DirectoryModel) -> PolicyDirectoryState {
        directory.reload(PolicyDirectoryState()).next
    }

    @Test("a new file adds its policy in a new generation")
    func newFile() {
        let first = loaded(DirectoryModel(["a.yaml": "name: a\n"]))
        var directory = DirectoryModel(["a.yaml": "name: a\n"])
        directory["b.yml"] = .text("name: b\nattempts: 3\n")
        let reload = directory.reload(first)
        #expect(reload.publishes)
        #expect(reload.report.added == ["b"])
        #expect(reload.report.changed.isEmpty && reload.report.removed.isEmpty && reload.report.problems.isEmpty)
        #expect(reload.report.filesChanged)
        #expect(reload.next.served["b"] == PolicyDirectoryState.Served(path: base + "b.yml", policy: reload.next.served["b"]!.policy, pending: false))
        #expect(reload.next.served["b"]?.policy.attempts == 3)
        #expect(reload.next.generation == first.generation + 1)
        #expect(reload.next.sequence == first.sequence + 1)
    }

    @Test("an unchanged directory: nothing loaded, no generation, nothing reported; unless forced")
    func unchanged() {
        let directory = DirectoryModel(["a.yaml": "name: a\n", "b.yaml": "name: b\n"])
        let state = loaded(directory)
        let scan = directory.scan(after: state)
        #expect(scan.files.values.allSatisfy { $0.load == nil }, "nothing is loaded")
        let reload = PolicyDirectoryReload(scan, after: state, force: false, removals: .immediate)
        #expect(!reload.publishes)
        #expect(reload.report == PolicyStore.ReloadReport(sequence: state.sequence + 1))
        #expect(reload.next.generation == state.generation)
        #expect(reload.next.served == state.served)

        let forced = directory.reload(state, force: true)
        #expect(forced.publishes && !forced.report.filesChanged)
        #expect(forced.report.added.isEmpty && forced.report.changed.isEmpty)
        #expect(forced.next.generation == state.generation + 1)
    }

    @Test("a changed file changes its policy and only its policy")
    func changedFile() {
        var directory = DirectoryModel(["a.yaml": "name: a\n", "b.yaml": "name: b\n"])
        let state = loaded(directory)
        directory["b.yaml"] = .text("name: b\nattempts: 4\n")
        let reload = directory.reload(state)
        #expect(reload.report.changed == ["b"])
        #expect(reload.report.added.isEmpty && reload.report.removed.isEmpty)
        #expect(reload.next.served["b"]?.policy.attempts == 4)
        #expect(reload.next.served["a"] == state.served["a"])
    }

    @Test("a removed file: dropped at once when removals are immediate")
    func removedFile() {
        var directory = DirectoryModel(["a.yaml": "name: a\n", "b.yaml": "name: b\n"])
        let state = loaded(directory)
        directory["a.yaml"] = nil
        let reload = directory.reload(state)
        #expect(reload.report.removed == ["a"])
        #expect(reload.next.served.keys.sorted() == ["b"])
        #expect(reload.next.files[base + "a.yaml"] == nil)
        #expect(reload.report.pendingRemovals.isEmpty)
    }

    @Test("a removed file under a watch: served and pending until a reload confirms the absence")
    func removalConfirmed() {
        var directory = DirectoryModel(["a.yaml": "name: a\n", "b.yaml": "name: b\n"])
        let state = loaded(directory)
        directory["a.yaml"] = nil
        let missed = directory.reload(state, removals: .deferred(confirmingUpTo: nil))
        #expect(missed.publishes && missed.report.filesChanged)
        #expect(missed.report.removed.isEmpty)
        #expect(missed.report.pendingRemovals == ["a"] && missed.newlyPending == ["a"])
        #expect(missed.next.served["a"] == PolicyDirectoryState.Served(path: base + "a.yaml", policy: state.served["a"]!.policy, pending: true))
        let mark = missed.next.sequence

        // Still absent, not confirmed yet: nothing new.
        let again = directory.reload(missed.next, removals: .deferred(confirmingUpTo: nil))
        #expect(!again.publishes)
        #expect(again.report.pendingRemovals == ["a"] && again.newlyPending.isEmpty)

        // Confirmed by a check of the reloads up to the mark.
        let confirmed = directory.reload(again.next, removals: .deferred(confirmingUpTo: mark))
        #expect(confirmed.publishes)
        #expect(confirmed.report.removed == ["a"])
        #expect(confirmed.report.pendingRemovals.isEmpty)
        #expect(confirmed.next.served.keys.sorted() == ["b"])

        // A check for an earlier mark does not drop a later absence.
        let early = directory.reload(missed.next, removals: .deferred(confirmingUpTo: mark - 1))
        #expect(!early.publishes && early.next.served["a"]?.pending == true)
    }

    @Test("a file back before the removal is confirmed is never removed, and its decider's policy is unchanged")
    func fileBack() {
        var directory = DirectoryModel(["a.yaml": "name: a\n"])
        let state = loaded(directory)
        directory["a.yaml"] = nil
        let missed = directory.reload(state, removals: .deferred(confirmingUpTo: nil))
        directory["a.yaml"] = .text("name: a\n")
        let back = directory.reload(missed.next, removals: .deferred(confirmingUpTo: missed.next.sequence))
        #expect(back.publishes)
        #expect(back.report.removed.isEmpty && back.report.added.isEmpty && back.report.changed.isEmpty)
        #expect(back.report.pendingRemovals.isEmpty)
        #expect(back.next.served == state.served)
    }

    @Test("a file that turns invalid keeps its last good policy and reports located diagnostics; fixed, it is served")
    func invalidThenFixed() {
        var directory = DirectoryModel(["a.yaml": "name: a\nattempts: 2\n"])
        let state = loaded(directory)
        directory["a.yaml"] = .text("name: a\nattemps: 5\n")
        let broken = directory.reload(state)
        #expect(broken.publishes && broken.report.filesChanged)
        #expect(broken.report.changed.isEmpty && broken.report.removed.isEmpty)
        let problem = PolicyFileProblem(
            path: base + "a.yaml",
            diagnostics: [
                Diagnostic(
                    location: SourceLocation(file: base + "a.yaml", line: 2, column: 1),
                    message: "expected 'name', 'attempts' or 'extends', found 'attemps: 5'")
            ])
        #expect(broken.report.problems == [problem])
        #expect(problem.description == "\(base)a.yaml:2:1: error: expected 'name', 'attempts' or 'extends', found 'attemps: 5'")
        #expect(broken.next.problems == [base + "a.yaml": problem])
        #expect(broken.next.served["a"] == state.served["a"], "the last good policy stays")

        // Still broken, unchanged: not reported again.
        #expect(!directory.reload(broken.next).publishes)

        directory["a.yaml"] = .text("name: a\nattempts: 5\n")
        let fixed = directory.reload(broken.next)
        #expect(fixed.report.changed == ["a"])
        #expect(fixed.report.problems.isEmpty && fixed.next.problems.isEmpty)
        #expect(fixed.next.served["a"]?.policy.attempts == 5)
    }

    @Test("a file that never loaded serves nothing and is reported")
    func neverLoaded() {
        let reload = DirectoryModel(["a.yaml": "name: a\n", "broken.yaml": "attempts: x\n"]).reload(PolicyDirectoryState())
        #expect(reload.report.added == ["a"])
        #expect(reload.report.problems.map(\.path) == [base + "broken.yaml"])
        #expect(reload.next.served.keys.sorted() == ["a"])
    }

    @Test("a changed parent reloads the files that extend it")
    func parentChanged() {
        var directory = DirectoryModel(["base.yaml": "name: base\nattempts: 2\n", "child.yaml": "name: child\nextends: base.yaml\n"])
        let state = loaded(directory)
        #expect(state.served["child"]?.policy.attempts == 2)
        directory["base.yaml"] = .text("name: base\nattempts: 6\n")
        let scan = directory.scan(after: state)
        #expect(scan.files[base + "child.yaml"]?.load != nil, "every file is loaded again, not only the changed one")
        let reload = PolicyDirectoryReload(scan, after: state, force: false, removals: .immediate)
        #expect(reload.report.changed == ["base", "child"])
        #expect(reload.next.served["child"]?.policy.attempts == 6)

        // A parent that no longer loads: the child keeps its last good policy.
        directory["base.yaml"] = .text("oops\n")
        let broken = directory.reload(reload.next)
        #expect(broken.report.problems.map(\.path) == [base + "base.yaml", base + "child.yaml"])
        #expect(broken.next.served["child"]?.policy.attempts == 6)
    }

    @Test("a policy renamed to another file is served from the new file, neither added nor removed")
    func renamed() {
        var directory = DirectoryModel(["a.yaml": "name: p\n"])
        let state = loaded(directory)
        directory["a.yaml"] = nil
        directory["b.yaml"] = .text("name: p\n")
        for removals in [PolicyDirectoryReload.Removals.immediate, .deferred(confirmingUpTo: nil)] {
            let reload = directory.reload(state, removals: removals)
            #expect(reload.report.added.isEmpty && reload.report.removed.isEmpty)
            #expect(reload.next.served["p"]?.path == base + "b.yaml")
            #expect(reload.next.served["p"]?.pending == false)
            #expect(reload.next.problems.isEmpty, "not a duplicate of the absent file")
            #expect(reload.report.pendingRemovals.isEmpty)
            #expect(reload.next.files[base + "a.yaml"] == nil, "the old file is forgotten")
        }
    }

    @Test("two files with one policy name: the first by path serves it, the other is reported")
    func duplicate() {
        let reload = DirectoryModel(["a.yaml": "name: same\nattempts: 2\n", "b.yaml": "name: same\nattempts: 3\n"])
            .reload(PolicyDirectoryState())
        #expect(reload.next.served["same"]?.policy.attempts == 2)
        #expect(reload.report.problems.map(\.path) == [base + "b.yaml"])
        #expect(reload.next.problems[base + "b.yaml"]?.diagnostics.first?.message.contains("already used by \(base)a.yaml") == true)
    }

    @Test("a file that cannot be read is a typed read error: reported, last good kept, a new reason is a change")
    func readError() {
        var directory = DirectoryModel(["a.yaml": "name: a\n"])
        let state = loaded(directory)
        directory["a.yaml"] = DirectoryModel.unreadable("a.yaml", "expected a regular file, found a FIFO")
        let unreadable = directory.reload(state)
        #expect(unreadable.publishes)
        #expect(unreadable.report.problems.first?.diagnostics.map(\.description) == ["\(base)a.yaml:1:1: error: expected a regular file, found a FIFO [RP009]"])
        #expect(unreadable.next.served["a"] == state.served["a"])
        #expect(!directory.reload(unreadable.next).publishes, "the same reason: unchanged")

        directory["a.yaml"] = DirectoryModel.unreadable("a.yaml", "a link that leads out of the directory")
        let other = directory.reload(unreadable.next)
        #expect(other.publishes && other.report.filesChanged)
        #expect(other.report.problems.first?.diagnostics.first?.message.contains("leads out") == true)
    }

    @Test("a file held back while it is written keeps its previous state and is due again")
    func heldFile() {
        var directory = DirectoryModel(["a.yaml": "name: a\n", "b.yaml": "name: b\n"])
        let state = loaded(directory)
        directory["a.yaml"] = .text("name: a\natt")  // a prefix of what is being written
        directory["c.yaml"] = .text("name: c\n")
        let reload = directory.reload(
            state, held: ["a.yaml": .milliseconds(150), "c.yaml": .milliseconds(40)])
        #expect(reload.report.deferred == [base + "a.yaml", base + "c.yaml"])
        #expect(reload.report.recheckAfter == .milliseconds(40))
        #expect(!reload.publishes, "nothing read differs")
        #expect(reload.next.served == state.served)
        #expect(reload.next.files == state.files)
    }

    @Test("a directory that cannot be read keeps every policy and is reported once per outage")
    func directoryUnreadable() {
        let directory = DirectoryModel(["a.yaml": "name: a\n"])
        let state = loaded(directory)
        let problem = PolicyFileProblem(path: "/policies", message: "cannot be listed")
        let lost = PolicyDirectoryReload(keeping: state, because: problem)
        #expect(lost.publishes && lost.report.problems == [problem])
        #expect(lost.next.served == state.served)
        #expect(lost.next.problems == ["/policies": problem])
        let still = PolicyDirectoryReload(keeping: lost.next, because: problem)
        #expect(!still.publishes && still.report.problems.isEmpty)

        // Back: a new generation without the problem, although no file changed.
        let back = directory.reload(still.next)
        #expect(back.publishes && !back.report.filesChanged)
        #expect(back.next.problems.isEmpty && back.next.directoryProblem == nil)
        #expect(back.next.served == state.served)
    }
}
