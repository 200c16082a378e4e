#if canImport(Glibc)
import Foundation
import Glibc
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import RetryPolicyTesting
import Testing

/// The event-driven watch against a real temporary directory. Tests wait
/// on what the store reports (its event stream, its snapshot), each with a
/// generous bound, never on a fixed sleep. The safety re-scan is off unless
/// a test is about it, so a reload can only have come from an event.
///
/// Serialized: the tests share timing-sensitive file-system events, and
/// one at a time keeps each test's events its own.
@Suite("PolicyStore.watch: reloads on file-system events", .serialized, .timeLimit(.minutes(3)))
struct PolicyStoreWatchTests: WatchedDirectorySuite {
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
            store.snapshot.problems[path]?.diagnostics.map(\.description)
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
}
#endif
