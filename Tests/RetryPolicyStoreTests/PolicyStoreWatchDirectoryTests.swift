#if canImport(Glibc)
import Foundation
import Glibc
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import RetryPolicyTesting
import Testing

/// The watch against a real temporary directory: config map swaps, the
/// directory itself deleted, moved or replaced, and the watch's resources.
/// Waits as `PolicyStoreWatchTests` does, on the store's events.
@Suite("PolicyStore.watch: config maps, the directory itself, resources", .serialized, .timeLimit(.minutes(3)))
struct PolicyStoreWatchDirectoryTests: WatchedDirectorySuite {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "policy-store-watch-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    // MARK: Kubernetes config maps

    @Test("a config map's atomic `..data` swap serves the new content")
    func configMapSwap() async throws {
        // The layout the kubelet writes: files are symlinks through
        // `..data`, itself a symlink to a timestamped directory.
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory + "/..2026_11_22_08_00_00.1", withIntermediateDirectories: false)
        try writeInPlace("..2026_11_22_08_00_00.1/p.yaml", "name: p\nattempts: 1\n")
        try fm.createSymbolicLink(atPath: directory + "/..data", withDestinationPath: "..2026_11_22_08_00_00.1")
        try fm.createSymbolicLink(atPath: directory + "/p.yaml", withDestinationPath: "..data/p.yaml")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        #expect(store.decider(named: "p")?.policy.attempts == 1)
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log)

        // The update: a new timestamped directory, a `..data_tmp` symlink
        // to it renamed over `..data`, the old directory removed.
        try fm.createDirectory(atPath: directory + "/..2026_11_22_08_05_00.2", withIntermediateDirectories: false)
        try writeInPlace("..2026_11_22_08_05_00.2/p.yaml", "name: p\nattempts: 8\n")
        try fm.createSymbolicLink(atPath: directory + "/..data_tmp", withDestinationPath: "..2026_11_22_08_05_00.2")
        #expect(rename(directory + "/..data_tmp", directory + "/..data") == 0)
        try fm.removeItem(atPath: directory + "/..2026_11_22_08_00_00.1")

        try await log.wait("the swap's reload") { _ in log.reloads(.fileEvent).contains { $0.changed == ["p"] } }
        #expect(store.decider(named: "p")?.policy.attempts == 8)
        #expect(store.snapshot.policyNames == ["p"])
        #expect(store.snapshot.problems.isEmpty)
        await stop(watch, store)
    }

    // MARK: The directory itself

    @Test("a deleted directory keeps the policies and polls; recreated, it is watched again")
    func directoryDeletedAndRecreated() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        // `rm -rf` unlinks the files before the directory: a quiet period
        // longer than that keeps the store from reloading in between.
        let watch = try await startWatching(store, log: log, debounce: .milliseconds(500), pollingFallback: .milliseconds(50))

        try FileManager.default.removeItem(atPath: directory)
        try await log.wait("polling while the directory is gone") { _ in
            if case .polling(_, let reason?) = store.watchMode { return reason.contains("does not exist") }
            return false
        }
        try await log.wait("the missing directory to be reported") { _ in store.snapshot.problems[directory] != nil }
        #expect(store.decider(named: "p")?.policy.attempts == 1, "the last good policy stays in service")

        try replaceDirectory(with: ["p.yaml": "name: p\nattempts: 2\n"])
        try await log.wait("events again, with the new content") { _ in
            store.watchMode == .events(rescanEvery: nil) && store.decider(named: "p")?.policy.attempts == 2
        }
        #expect(store.snapshot.problems.isEmpty)

        // The new directory's events arrive: the watch is on it.
        try writeInPlace("p.yaml", "name: p\nattempts: 3\n")
        try await log.wait("an edit in the new directory") { _ in log.reloads(.fileEvent).contains { $0.changed == ["p"] } }
        #expect(store.decider(named: "p")?.policy.attempts == 3)
        await stop(watch, store)
    }

    @Test("a directory moved away and replaced is watched at its path, not at the old inode")
    func directoryMovedAndReplaced() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log, pollingFallback: .milliseconds(50))
        let moved = directory + ".old"
        defer { try? FileManager.default.removeItem(atPath: moved) }

        #expect(rename(directory, moved) == 0)
        try await log.wait("polling while the path is empty") { _ in
            if case .polling = store.watchMode { return true }
            return false
        }
        try replaceDirectory(with: ["p.yaml": "name: p\nattempts: 2\n"])
        try await log.wait("events again, with the new content") { _ in
            store.watchMode == .events(rescanEvery: nil) && store.decider(named: "p")?.policy.attempts == 2
        }
        try writeInPlace("p.yaml", "name: p\nattempts: 3\n")
        try await log.wait("an edit in the new directory") { _ in store.decider(named: "p")?.policy.attempts == 3 }
        await stop(watch, store)
    }

    @Test("a directory missing at start is polled for, then watched with events")
    func directoryMissingAtStart() async throws {
        try FileManager.default.removeItem(atPath: directory)
        let store = PolicyStore(directory: directory, loader: lineLoader)
        #expect(store.snapshot.problems[directory] != nil)
        let log = StoreEventLog.recording(store)
        let watch = Task { await store.watch(debounce: .milliseconds(20), rescanEvery: nil, pollingFallback: .milliseconds(50)) }
        try await log.wait("polling") { _ in
            if case .polling(.milliseconds(50), _?) = store.watchMode { return true }
            return false
        }
        try replaceDirectory(with: ["p.yaml": "name: p\n"])
        try await log.wait("p served through events") { _ in
            store.watchMode == .events(rescanEvery: nil) && store.decider(named: "p") != nil
        }
        #expect(store.snapshot.problems.isEmpty)
        await stop(watch, store)
    }

    // MARK: Resources and readers

    @Test("cancelling the watch stops the watcher promptly and closes its descriptors")
    func cancellationClosesDescriptors() async throws {
        try writeInPlace("p.yaml", "name: p\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        // Other suites watch their own directories at the same time, so the
        // watch's descriptors are told apart from theirs: its inotify
        // descriptor by the directory inode it watches, its wake-up pipe as
        // a pipe that appeared with it, both ends non-blocking.
        #expect(Self.inotifyDescriptors(watching: directory) == 0)
        let pipesBefore = Self.wakeUpPipes()

        // On a manual clock that never moves no timer of the watch fires
        // (debounce, polling, re-scan), so the watch can only return because
        // cancelling woke it: a watch that missed the cancellation would
        // hang until the test's time limit.
        let watch = try await startWatching(store, log: log, clock: ManualClock())
        #expect(Self.inotifyDescriptors(watching: directory) == 1, "the watch holds one inotify descriptor")
        let newPipes = Self.wakeUpPipes().subtracting(pipesBefore)
        #expect(!newPipes.isEmpty, "and a wake-up pipe")

        watch.cancel()
        await watch.value
        #expect(Self.inotifyDescriptors(watching: directory) == 0)
        // A pipe of a watch that another suite started meanwhile may still
        // be open; the watch's own must not.
        #expect(
            newPipes.intersection(Self.wakeUpPipes()).count < newPipes.count,
            "the wake-up pipe is closed")
        #expect(store.watchMode == .notWatching)
        try await log.wait("the mode change") { $0.last == .watchModeChanged(.notWatching) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test("concurrent readers always see a whole, valid generation during event-driven reloads")
    func concurrentReadersDuringEventReloads() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        try writeInPlace("q.yaml", "name: q\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log, debounce: .milliseconds(5))
        let flags = ReaderFlags()
        let rounds = 30

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var lastGeneration = 0
                    while !flags.stop.withLock({ $0 }) {
                        let snapshot = store.snapshot
                        guard let p = snapshot.deciders["p"], let q = snapshot.deciders["q"],
                            (1...rounds).contains(p.policy.attempts), (1...rounds).contains(q.policy.attempts),
                            snapshot.paths.keys.sorted() == snapshot.policyNames,
                            snapshot.generation >= lastGeneration
                        else {
                            flags.anomalies.add(1, ordering: .relaxed)
                            await Task.yield()
                            continue
                        }
                        lastGeneration = snapshot.generation
                        flags.reads.add(1, ordering: .relaxed)
                        await Task.yield()
                    }
                }
            }
            for round in 2...rounds {
                let generation = store.snapshot.generation
                if round % 5 == 0 {
                    try renameOver("p.yaml", "name: p\nattempts: broken\n")  // never served
                } else {
                    try renameOver("p.yaml", "name: p\nattempts: \(round)\n")
                    try renameOver("q.yaml", "name: q\nattempts: \(round)\n")
                }
                try await log.wait("round \(round) reloaded") { _ in store.snapshot.generation > generation }
            }
            flags.stop.withLock { $0 = true }
            try await group.waitForAll()
        }
        #expect(flags.anomalies.load(ordering: .relaxed) == 0)
        #expect(flags.reads.load(ordering: .relaxed) > 0)
        #expect(store.decider(named: "q")?.policy.attempts == rounds - 1)
        // Every round's new generation came from an event-driven reload.
        try await log.wait("every round's reload to be reported") { _ in
            log.reloads(.fileEvent).filter(\.filesChanged).count >= rounds - 1
        }
        await stop(watch, store)
    }
}
#endif
