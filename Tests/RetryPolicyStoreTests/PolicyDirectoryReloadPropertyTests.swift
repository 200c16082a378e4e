import PropertyBased
import RetryPolicyCore
@testable import RetryPolicyStore
import Testing

/// The reload algorithm over random histories of a directory: four file
/// names, each absent or holding one of a few contents (valid policies
/// that share names, a file extending another, invalid text, unreadable
/// files).
@Suite("PolicyDirectoryReload over random sequences of directories")
struct PolicyDirectoryReloadPropertyTests {
    static let names = ["a.yaml", "b.yaml", "c.yml", "d.yaml"]

    /// What a file may hold; `nil` is an absent file.
    static let contents: [PolicyFileRead?] = [
        nil,
        .text("name: p\nattempts: 1\n"),
        .text("name: p\nattempts: 2\n"),
        .text("name: q\n"),
        .text("name: r\nextends: a.yaml\n"),
        .text("name: s\nattempts: 3\n"),
        .text("attempts: x\n"),
        DirectoryModel.unreadable("x", "expected a regular file, found a FIFO"),
    ]

    /// The directory that a history's entry describes: per file name, an
    /// index into ``contents``. Histories are 1 to 8 such entries.
    static func directory(_ choices: [Int]) -> DirectoryModel {
        var directory = DirectoryModel()
        for (name, choice) in zip(names, choices) { directory[name] = contents[choice] }
        return directory
    }

    @Test("reloading each directory of a history ends where loading the last one from scratch starts, when every file of it loads")
    func sameAsFromScratch() async {
        await propertyCheck(count: 400, input: Gen.int(in: 0...7).array(of: 4).array(of: 1...8)) { history in
            let directories = history.map(Self.directory)
            var state = PolicyDirectoryState()
            for directory in directories { state = directory.reload(state).next }
            let last = directories.last!
            let scratch = last.reload(PolicyDirectoryState()).next

            // Always: the same files, read the same, with the same load
            // problems (a last good policy is what history adds).
            #expect(state.files.mapValues(\.read) == scratch.files.mapValues(\.read))
            for (path, file) in scratch.files where file.problem != nil {
                #expect(state.files[path]?.problem == file.problem, "\(history)")
            }
            // When every file loads, nothing of the history is left.
            let allLoad = last.files.keys.allSatisfy { if case .success = last.load($0) { true } else { false } }
            if allLoad {
                #expect(state.served == scratch.served, "\(history)")
                #expect(state.problems == scratch.problems, "\(history)")
                #expect(state.files == scratch.files, "\(history)")
            }
        }
    }

    @Test("no event for what did not change: an unchanged directory publishes nothing; every policy reported comes from a file that changed")
    func noEventForUnchangedFiles() async {
        await propertyCheck(count: 400, input: Gen.int(in: 0...7).array(of: 4).array(of: 1...8)) { history in
            var state = PolicyDirectoryState()
            var previous = DirectoryModel()
            // Each directory twice: the second time nothing changed.
            for directory in history.map(Self.directory).flatMap({ [$0, $0] }) {
                let reload = directory.reload(state)
                let report = reload.report
                if directory == previous {
                    #expect(!reload.publishes, "\(history)")
                    #expect(report == PolicyStore.ReloadReport(sequence: reload.next.sequence), "\(history)")
                }
                // A file whose read changed, or whose parent's did (`r`
                // extends `a.yaml`), may change what it serves.
                func changed(_ path: String) -> Bool {
                    let parent = DirectoryModel.base + "a.yaml"
                    return directory.files[path] != previous.files[path]
                        || (path != parent && directory.files[parent] != previous.files[parent])
                }
                for name in report.added + report.changed {
                    let served = reload.next.served[name]!
                    #expect(changed(served.path) || state.served[name]?.path != served.path, "\(name) in \(history)")
                }
                for name in report.removed {
                    #expect(changed(state.served[name]!.path), "\(name) in \(history)")
                }
                state = reload.next
                previous = directory
            }
        }
    }

    @Test("a watch's reloads never drop a policy whose file is only absent until the absence is confirmed")
    func deferredRemovalsKeepServing() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...7).array(of: 4).array(of: 1...8)) { history in
            var state = PolicyDirectoryState()
            for directory in history.map(Self.directory) {
                let reload = directory.reload(state, removals: .deferred(confirmingUpTo: nil))
                for name in reload.report.removed {
                    // Removed only because a file that is there no longer
                    // serves it (its content changed), never for absence.
                    let path = state.served[name]!.path
                    #expect(directory.files[path] != nil, "\(name) in \(history)")
                }
                state = reload.next
            }
        }
    }
}
