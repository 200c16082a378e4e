#if canImport(Glibc)
import Foundation
import Glibc
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import Testing

/// The event-driven watch against a real temporary directory. Tests wait
/// on what the store reports (its event stream, its snapshot), each with a
/// generous bound, never on a fixed sleep. The safety re-scan is off unless
/// a test is about it, so a reload can only have come from an event.
///
/// Serialized: the tests share timing-sensitive file-system events, and
/// one at a time keeps each test's events its own.
@Suite("PolicyStore.watch: reloads on file-system events", .serialized, .timeLimit(.minutes(3)))
struct PolicyStoreWatchTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "policy-store-watch-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    // MARK: Edits

    @Test("a file written in place (`>`, cp) is reloaded once the writer closes it")
    func inPlaceEdit() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log)
        #expect(store.watchMode == .events(rescanEvery: nil))
        #expect(log.events.contains(.watchModeChanged(.events(rescanEvery: nil))))

        try writeInPlace("p.yaml", "name: p\nattempts: 3\n")
        try await log.wait("the edit's reload") { _ in log.reloads(.fileEvent).contains { $0.changed == ["p"] } }
        #expect(store.decider(named: "p")?.policy.attempts == 3)
        await stop(watch, store)
    }

    @Test("a temp file renamed over the policy (editors, atomic writers) is reloaded")
    func renameOver() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log)

        try renameOver("p.yaml", "name: p\nattempts: 4\n")
        try await log.wait("the rename's reload") { _ in log.reloads(.fileEvent).contains { $0.changed == ["p"] } }
        #expect(store.decider(named: "p")?.policy.attempts == 4)
        #expect(store.snapshot.policyNames == ["p"], "the temp file is not a policy")

        // Written elsewhere on the same file system and moved in: the
        // directory sees nothing but `MOVED_TO`.
        let staging = directory + "-staging"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: staging) }
        try "name: p\nattempts: 5\n".write(toFile: staging + "/p.yaml", atomically: false, encoding: .utf8)
        let reloads = log.reloads(.fileEvent).count
        #expect(rename(staging + "/p.yaml", directory + "/p.yaml") == 0)
        try await log.wait("the move's reload") { _ in log.reloads(.fileEvent).dropFirst(reloads).contains { $0.changed == ["p"] } }
        #expect(store.decider(named: "p")?.policy.attempts == 5)
        await stop(watch, store)
    }

    @Test("a new file adds its policy; a deleted file stays in service until a quiet period confirms the removal")
    func addAndDelete() async throws {
        try writeInPlace("p.yaml", "name: p\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let clock = ManualClock()
        let watch = try await startWatching(store, log: log, debounce: .seconds(1), clock: clock)

        try writeInPlace("q.yaml", "name: q\nattempts: 2\n")
        try await advanceUntil("q to be added", clock, log) { log.reloads(.fileEvent).contains { $0.added == ["q"] } }
        #expect(store.decider(named: "q")?.policy.attempts == 2)

        try FileManager.default.removeItem(atPath: directory + "/p.yaml")
        try await advanceUntil("p to be pending", clock, log) {
            log.reloads(.fileEvent).contains { $0.pendingRemovals == ["p"] }
        }
        #expect(store.decider(named: "p") != nil, "still served while the absence is not confirmed")
        #expect(store.snapshot.pendingRemovals == ["p"])
        #expect(store.health.pendingRemovals == ["p"])
        #expect(log.reloads(.removalCheck).isEmpty)

        try await advanceUntil("p to be removed", clock, log) { !log.reloads(.removalCheck).isEmpty }
        #expect(log.reloads(.removalCheck).first?.removed == ["p"])
        #expect(store.decider(named: "p") == nil)
        #expect(store.snapshot.policyNames == ["q"])
        #expect(store.snapshot.pendingRemovals.isEmpty)
        await stop(watch, store)
    }

    @Test("a file deleted and written again within the quiet period is never missing")
    func deleteAndRecreate() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let clock = ManualClock()
        let watch = try await startWatching(store, log: log, debounce: .seconds(1), clock: clock)

        try FileManager.default.removeItem(atPath: directory + "/p.yaml")
        try await advanceUntil("the deletion's reload", clock, log) { !log.reloads(.fileEvent).isEmpty }
        #expect(store.decider(named: "p")?.policy.attempts == 1)
        try writeInPlace("p.yaml", "name: p\nattempts: 2\n")
        try await advanceUntil("the new file", clock, log) { store.decider(named: "p")?.policy.attempts == 2 }
        // The check scheduled by the deletion finds the file back.
        try await advanceUntil("the removal check", clock, log) { !log.reloads(.removalCheck).isEmpty }
        #expect(log.events.allSatisfy { event in
            if case .reloaded(let report) = event { return report.removed.isEmpty }
            return true
        })
        #expect(store.snapshot.pendingRemovals.isEmpty)
        await stop(watch, store)
    }

    @Test("a policy moved to another file is served throughout, from the new file")
    func policyMovedToAnotherFile() async throws {
        try writeInPlace("a.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log)
        #expect(rename(directory + "/a.yaml", directory + "/b.yaml") == 0)
        try await log.wait("the move") { _ in store.snapshot.paths["p"] == directory + "/b.yaml" }
        #expect(store.snapshot.problems.isEmpty, "not reported as a duplicate of the absent file")
        #expect(store.snapshot.pendingRemovals.isEmpty, "the policy is not pending: its new file serves it")
        #expect(log.events.allSatisfy { event in
            if case .reloaded(let report) = event { return report.removed.isEmpty }
            return true
        })
        // The old file is forgotten: deleting the new one removes the policy.
        try FileManager.default.removeItem(atPath: directory + "/b.yaml")
        try await log.wait("the removal") { _ in log.reloads(.removalCheck).contains { $0.removed == ["p"] } }
        #expect(store.snapshot.policyNames.isEmpty)
        await stop(watch, store)
    }

    @Test("a writer that keeps the file open and writes in place is reloaded without closing it")
    func openWriter() async throws {
        try writeInPlace("p.yaml", "attempts: 1\nname: p\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log)
        let fd = open(directory + "/p.yaml", O_WRONLY | O_TRUNC | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        // Truncated to zero bytes: an empty file does not load, the last
        // good policy stays.
        try await log.wait("the truncation's reload") { _ in store.snapshot.problems[directory + "/p.yaml"] != nil }
        #expect(store.decider(named: "p")?.policy.attempts == 1)
        let text = Array("attempts: 9\nname: p\n".utf8)
        #expect(write(fd, text, text.count) == text.count)
        try await log.wait("the write's reload, the file still open") { _ in store.decider(named: "p")?.policy.attempts == 9 }
        #expect(store.snapshot.problems.isEmpty)
        await stop(watch, store)
    }

    @Test("an invalid edit keeps the last good policy and is reported; fixing the file reloads it")
    func invalidEditThenFix() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 2\n")
        let reported = LockedValue<[PolicyFileProblem]>([])
        let store = PolicyStore(directory: directory, loader: lineLoader, onProblems: { problems in
            reported.withLock { $0 += problems }
        })
        let log = StoreEventLog.recording(store)
        let watch = try await startWatching(store, log: log)
        let path = directory + "/p.yaml"

        try renameOver("p.yaml", "name: p\nattemps: 5\n")
        try await log.wait("the problem to be reported") { _ in
            log.reloads(.fileEvent).contains { $0.problems.map(\.path) == [path] && $0.changed.isEmpty }
        }
        #expect(store.decider(named: "p")?.policy.attempts == 2)
        #expect(
            store.snapshot.problems[path]?.diagnostics
                == ["\(path):2:1: error: expected 'name: X' or 'attempts: N', found 'attemps: 5'"])
        #expect(reported.withLock { $0.map(\.path) } == [path])

        try renameOver("p.yaml", "name: p\nattempts: 5\n")
        try await log.wait("the fix to be served") { _ in store.decider(named: "p")?.policy.attempts == 5 }
        #expect(store.snapshot.problems.isEmpty)
        await stop(watch, store)
    }

    @Test("an edit made between loading and watching is not missed")
    func editBeforeWatchStarts() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        try writeInPlace("p.yaml", "name: p\nattempts: 6\n")
        let watch = try await startWatching(store, log: log)
        #expect(store.decider(named: "p")?.policy.attempts == 6)
        #expect(log.reloads(.watchStarted).first?.changed == ["p"])
        await stop(watch, store)
    }

    // MARK: Debounce and re-scan, on a manual clock

    @Test("a burst of 20 writes becomes one reload, after a whole quiet period")
    func burstIsDebounced() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let clock = ManualClock()
        let watch = try await startWatching(store, log: log, debounce: .seconds(1), clock: clock)

        for attempts in 1...20 { try writeInPlace("p.yaml", "name: p\nattempts: \(attempts + 1)\n") }
        try await sleepers(1, on: clock, "the events to arrive and the quiet period to run")
        #expect(log.reloads(.fileEvent).isEmpty, "no reload before the quiet period ends")
        #expect(store.decider(named: "p")?.policy.attempts == 1)

        // Events still being read when the period started restart it, so
        // advance until the reload comes (a few rounds at most).
        var rounds = 0
        while log.reloads(.fileEvent).isEmpty {
            rounds += 1
            try #require(rounds <= 20, "the quiet period never ended")
            clock.advance(by: .seconds(1))
            _ = try await log.wait("a reload or a new quiet period", orSleeperOn: clock) { !log.reloads(.fileEvent).isEmpty }
        }
        #expect(log.reloads(.fileEvent).count == 1)
        #expect(log.reloads(.fileEvent).first?.changed == ["p"])
        #expect(store.decider(named: "p")?.policy.attempts == 21)
        await stop(watch, store)
    }

    @Test("the safety re-scan picks up a change that raised no event")
    func rescan() async throws {
        try writeInPlace("p.yaml", "name: p\nattempts: 1\n")
        // inotify reports a write to the directory whose entry was used to
        // open the file; writing through a hard link elsewhere raises no
        // event here, like a change made on another NFS client.
        let elsewhere = directory + "-link"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        #expect(link(directory + "/p.yaml", elsewhere + "/p.yaml") == 0)
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let clock = ManualClock()
        let watch = try await startWatching(store, log: log, rescanEvery: .seconds(30), clock: clock)
        #expect(store.watchMode == .events(rescanEvery: .seconds(30)))
        try await sleepers(1, on: clock, "the re-scan timer")

        let fd = open(elsewhere + "/p.yaml", O_WRONLY | O_TRUNC)
        let text = Array("name: p\nattempts: 7\n".utf8)
        #expect(fd >= 0 && write(fd, text, text.count) == text.count)
        // A re-scan does not read a file changed less than a quiet period
        // ago (a writer may be half-way through it): this write is dated a
        // minute back, done long ago.
        var times = [timespec(), timespec()]
        clock_gettime(CLOCK_REALTIME, &times[0])
        times[0].tv_sec -= 60
        times[1] = times[0]
        #expect(futimens(fd, times) == 0)
        close(fd)
        #expect(store.decider(named: "p")?.policy.attempts == 1)
        clock.advance(by: .seconds(30))
        try await log.wait("the re-scan") { _ in !log.reloads(.rescan).isEmpty }
        #expect(log.reloads(.rescan).first?.changed == ["p"])
        #expect(store.decider(named: "p")?.policy.attempts == 7)
        #expect(log.reloads(.fileEvent).isEmpty)
        await stop(watch, store)
    }

    @Test("a directory path through a symlink switched elsewhere is followed from the next re-scan")
    func symlinkedDirectorySwitched() async throws {
        let fm = FileManager.default
        for (name, attempts) in [("a", 1), ("b", 2)] {
            try fm.createDirectory(atPath: directory + "/" + name, withIntermediateDirectories: false)
            try writeInPlace("\(name)/p.yaml", "name: p\nattempts: \(attempts)\n")
        }
        try fm.createSymbolicLink(atPath: directory + "/current", withDestinationPath: "a")
        let store = PolicyStore(directory: directory + "/current", loader: lineLoader)
        let log = StoreEventLog.recording(store)
        let clock = ManualClock()
        let watch = try await startWatching(store, log: log, rescanEvery: .seconds(30), clock: clock)
        try await sleepers(1, on: clock, "the re-scan timer")

        try fm.createSymbolicLink(atPath: directory + "/next", withDestinationPath: "b")
        #expect(rename(directory + "/next", directory + "/current") == 0)
        clock.advance(by: .seconds(30))
        try await log.wait("the watch to move") { _ in log.reloads(.watchStarted).count == 2 }
        #expect(log.reloads(.watchStarted).last?.changed == ["p"])
        #expect(store.decider(named: "p")?.policy.attempts == 2)
        #expect(store.watchMode == .events(rescanEvery: .seconds(30)))

        // Events now come from the new directory.
        // An in-place write raises several events, which may arrive on
        // either side of a clock step and restart the quiet period: step
        // until the reload, not once.
        try writeInPlace("b/p.yaml", "name: p\nattempts: 3\n")
        try await sleepers(2, on: clock, "the quiet period to start")
        try await advanceUntil("an edit in the new directory", clock, log, step: .milliseconds(20), sleepers: 2) {
            log.reloads(.fileEvent).contains { $0.changed == ["p"] }
        }
        #expect(store.decider(named: "p")?.policy.attempts == 3)
        await stop(watch, store)
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

    // MARK: Helpers

    /// Advances `clock` a quiet period at a time until `condition` holds.
    /// Before each step the watch has either got there or is waiting on
    /// the clock (a quiet period after the events it has seen, or a timer):
    /// `sleepers` tasks sleep on it, counting timers that a step does not
    /// wake (a re-scan timer), so no step is taken while the watch is busy.
    func advanceUntil(
        _ what: String, _ clock: ManualClock, _ log: StoreEventLog, step: Duration = .seconds(1), sleepers: Int = 1,
        sourceLocation: Testing.SourceLocation = #_sourceLocation, until condition: @escaping @Sendable () -> Bool
    ) async throws {
        for _ in 0..<50 {
            if try await log.wait(what, orSleeperOn: clock, sleepers: sleepers, sourceLocation: sourceLocation, until: condition) {
                return
            }
            clock.advance(by: step)
        }
        Issue.record("advanced the clock 50 times waiting for \(what); events: \(log.events)", sourceLocation: sourceLocation)
        throw StoreEventLog.Timeout()
    }

    /// Returns once `count` tasks sleep on `clock`; fails the test after
    /// `limit`.
    func sleepers(
        _ count: Int, on clock: ManualClock, _ what: String, limit: Duration = .seconds(60),
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let arrived = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await clock.sleepers(atLeast: count)
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard arrived else {
            Issue.record("waited \(limit) for \(what)", sourceLocation: sourceLocation)
            throw StoreEventLog.Timeout()
        }
    }

    /// Truncates and writes, as `>` and `cp` do.
    func writeInPlace(_ name: String, _ text: String) throws {
        let fd = open(directory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// Writes a hidden temp file and renames it over `name`, as editors and
    /// atomic writers do.
    func renameOver(_ name: String, _ text: String) throws {
        try writeInPlace(".\(name).tmp", text)
        guard rename(directory + "/.\(name).tmp", directory + "/" + name) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// Puts a new directory with `files` at the watched path in one rename.
    func replaceDirectory(with files: [String: String]) throws {
        let staging = directory + ".staging"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        for (name, text) in files { try text.write(toFile: staging + "/" + name, atomically: false, encoding: .utf8) }
        guard rename(staging, directory) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Starts `watch` and returns once the watch is established (its first
    /// reload is reported).
    func startWatching<C: Clock>(
        _ store: PolicyStore, log: StoreEventLog, debounce: Duration = .milliseconds(20),
        rescanEvery: Duration? = nil, pollingFallback: Duration = .seconds(5), clock: C
    ) async throws -> Task<Void, Never> where C.Duration == Duration {
        let watch = Task {
            await store.watch(debounce: debounce, rescanEvery: rescanEvery, pollingFallback: pollingFallback, clock: clock)
        }
        try await log.wait("the watch to start") { _ in !log.reloads(.watchStarted).isEmpty }
        return watch
    }

    func startWatching(
        _ store: PolicyStore, log: StoreEventLog, debounce: Duration = .milliseconds(20),
        pollingFallback: Duration = .seconds(5)
    ) async throws -> Task<Void, Never> {
        try await startWatching(
            store, log: log, debounce: debounce, pollingFallback: pollingFallback, clock: ContinuousClock())
    }

    func stop(_ watch: Task<Void, Never>, _ store: PolicyStore) async {
        watch.cancel()
        await watch.value
        #expect(store.watchMode == .notWatching)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The process's descriptors, each with its `/proc/self/fd` target
    /// and `/proc/self/fdinfo` text.
    static func descriptors() -> [(target: String, info: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry),
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + entry, encoding: .utf8)
            else { return nil }
            return (target, info)
        }
    }

    /// How many inotify descriptors of this process watch `path`'s inode
    /// (fdinfo lists each watch as `inotify wd:N ino:HEX sdev:HEX ...`).
    static func inotifyDescriptors(watching path: String) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        let inode = "ino:" + String(UInt64(status.st_ino), radix: 16) + " "
        return descriptors().filter { descriptor in
            descriptor.target == "anon_inode:inotify"
                && descriptor.info.split(separator: "\n").contains { $0.hasPrefix("inotify ") && $0.contains(inode) }
        }.count
    }

    /// The pipes (`pipe:[inode]`) of which this process holds both ends,
    /// each non-blocking, as a watcher's wake-up pipe is.
    static func wakeUpPipes() -> Set<String> {
        var ends: [String: [Bool]] = [:]
        for descriptor in descriptors() where descriptor.target.hasPrefix("pipe:") {
            let flags = descriptor.info.split(separator: "\n").first { $0.hasPrefix("flags:") }
                .flatMap { Int($0.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0
            ends[descriptor.target, default: []].append(flags & Int(O_NONBLOCK) != 0)
        }
        return Set(ends.filter { $0.value.count >= 2 && $0.value.allSatisfy { $0 } }.keys)
    }
}
#endif
