#if canImport(Glibc)
import Foundation
import Glibc
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import RetryPolicyTesting
import Testing

/// A suite of watch tests, each test with a temporary directory of its
/// own: how they write files, start and stop watches, and wait.
protocol WatchedDirectorySuite {
    var directory: String { get }
}

extension WatchedDirectorySuite {
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
