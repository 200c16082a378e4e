#if canImport(Glibc)
import Foundation
import Glibc
import Logging
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import Testing

/// One task changes a real directory in every way deployments do, at
/// random, while eight tasks read the store continuously and check on every
/// read that the store never serves less than the last good set.
///
/// Seeded: the seed is printed; `POLICY_STORE_CHAOS_SEED=<n>` repeats a
/// run's sequence of operations (the interleaving with the store's thread
/// is the scheduler's), `POLICY_STORE_CHAOS_SECONDS` changes the time
/// budget (3 seconds by default).
@Suite("PolicyStore chaos: random file operations under concurrent readers", .timeLimit(.minutes(3)))
struct PolicyStoreChaosTests {
    static let quiet: Duration = .milliseconds(50)
    /// The longest a single read may take. Reads are one atomic load; the
    /// bound leaves room for a loaded CI machine (and sanitizers)
    /// preempting the reader, not for waiting on a reload.
    static let readBound: Duration = .milliseconds(250)
    /// Operations in a run whatever the time: with 3 of the 13 kinds
    /// changing no file's content, 20 leave every file as it was with a
    /// chance of about 1 in 10^13.
    static let minimumOperations = 20

    @Test("whole generations, no policy missing unless deliberately removed, readers never blocked, final state equals a fresh load")
    func chaos() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["POLICY_STORE_CHAOS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        let seconds = environment["POLICY_STORE_CHAOS_SECONDS"].flatMap(Double.init) ?? 3
        print("PolicyStore chaos: seed \(seed) (POLICY_STORE_CHAOS_SEED=\(seed) repeats it), \(seconds) s")

        let base = NSTemporaryDirectory() + "policy-store-chaos-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: base) }
        var world = ChaosWorld(base: base, seed: seed)
        try world.populate()

        let store = PolicyStore(directory: world.directory, loader: lineLoader, logger: Logger.quiet)
        #expect(store.snapshot.policyNames == world.truth.expectedNames(), "seed \(seed)")
        let log = StoreEventLog.recording(store)
        let watch = Task {
            await store.watch(debounce: Self.quiet, rescanEvery: .seconds(1), pollingFallback: .milliseconds(200))
        }
        try await log.wait("the watch to start") { _ in !log.reloads(.watchStarted).isEmpty }

        let truth = world.truth
        let flags = ReaderFlags()
        let readers = (0..<8).map { _ in ReaderStats() }
        let clock = ContinuousClock()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for stats in readers {
                group.addTask { await Self.read(store, truth: truth, stats: stats, until: flags, clock: clock) }
            }
            // At least `minimumOperations`, however slow a loaded machine
            // makes them: a run of a pause and a permission change alone
            // (as a starved ASan run once did in its 3 s) changes no file.
            let deadline = clock.now + .milliseconds(Int(seconds * 1000))
            var done = 0
            while clock.now < deadline || done < Self.minimumOperations {
                try await world.randomOperation()
                done += 1
            }
            flags.stop.withLock { $0 = true }
            try await group.waitForAll()
        }

        // The directory settles: every file valid and readable again.
        try world.settle()
        let expected = world.truth.expectedNames()
        try await log.wait("the store to settle on the directory's content") { _ in
            let fresh = PolicyStore(directory: world.directory, loader: lineLoader).snapshot
            let served = store.snapshot
            return served.pendingRemovals.isEmpty && served.problems.isEmpty
                && Self.summary(served) == Self.summary(fresh) && fresh.policyNames == expected
        }
        watch.cancel()
        await watch.value

        let violations = readers.flatMap { $0.violations.withLock { $0 } }
        let reads = readers.reduce(0) { $0 + $1.reads.load(ordering: .relaxed) }
        let slowest = readers.map { $0.slowest.withLock { $0 } }.max() ?? .zero
        let reloads = log.events.filter { if case .reloaded(let report) = $0 { report.filesChanged } else { false } }.count
        print(
            "PolicyStore chaos: seed \(seed): \(world.operations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
                + "\(reloads) reloads that changed files, \(reads) reads, slowest read \(slowest), "
                + "\(log.reloads(.removalCheck).flatMap(\.removed).count) confirmed removals")
        #expect(violations.isEmpty, "seed \(seed): \(violations.prefix(10))")
        #expect(reads > 0)
        #expect(slowest < Self.readBound, "seed \(seed)")
        #expect(reloads > 0)
    }

    /// Policy name → attempts, and its file.
    static func summary(_ snapshot: PolicyStore.Snapshot) -> [String: String] {
        snapshot.deciders.mapValues { "\($0.policy.attempts)" }.merging(
            snapshot.paths.map { ("path:" + $0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// Reads until `stop`, checking every read.
    static func read(
        _ store: PolicyStore, truth: ChaosTruth, stats: ReaderStats, until flags: ReaderFlags,
        clock: ContinuousClock
    ) async {
        var previous: PolicyStore.Snapshot?
        while !flags.stop.withLock({ $0 }) {
            let start = clock.now
            let snapshot = store.snapshot
            let probe = store.decider(named: ChaosWorld.configMapNames[0])
            let took = start.duration(to: clock.now)
            if took > stats.slowest.withLock({ $0 }) { stats.slowest.withLock { $0 = took } }
            stats.reads.add(1, ordering: .relaxed)
            var problems: [String] = []
            if probe == nil { problems.append("a config map policy that is never removed is missing") }
            if Set(snapshot.paths.keys) != Set(snapshot.deciders.keys) { problems.append("paths and deciders differ") }
            for (name, decider) in snapshot.deciders {
                let path = snapshot.paths[name] ?? ""
                if decider.policy.name != name || !path.hasSuffix("/" + name + ".yaml") {
                    problems.append("\(name) served from \(path)")
                }
                if !truth.wasWritten(name, attempts: decider.policy.attempts) {
                    problems.append("\(name) has attempts \(decider.policy.attempts), never written")
                }
            }
            if let previous {
                if snapshot.generation < previous.generation { problems.append("generation went back") }
                let now = clock.now
                for name in previous.deciders.keys where snapshot.deciders[name] == nil {
                    if !truth.mayBeRemoved(name, at: now, quiet: quiet) {
                        problems.append("\(name) missing from generation \(snapshot.generation) without a confirmed removal")
                    }
                }
            }
            if !problems.isEmpty {
                stats.violations.withLock { $0.append(contentsOf: problems.map { "generation \(snapshot.generation): \($0)" }) }
            }
            previous = snapshot
            await Task.yield()
        }
    }
}

final class ReaderStats: Sendable {
    let reads = AtomicInt64(0)
    let slowest = LockedValue(Duration.zero)
    let violations = LockedValue<[String]>([])
}

/// What the writer did, for the readers to check against.
final class ChaosTruth: Sendable {
    private struct State {
        /// Every attempts value ever written for a name.
        var written: [String: Set<Int>] = [:]
        /// Deliberate removals: when a name's file was deleted and when it
        /// was written again (`nil`: still absent).
        var absences: [String: [(removed: ContinuousClock.Instant, back: ContinuousClock.Instant?)]] = [:]
        var present: Set<String> = []
    }

    private let state = LockedValue(State())

    func wrote(_ name: String, attempts: Int) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.written[name, default: []].insert(attempts)
            if !state.present.contains(name) {
                state.present.insert(name)
                if let last = state.absences[name]?.indices.last, state.absences[name]![last].back == nil {
                    state.absences[name]![last].back = now
                }
            }
        }
    }

    func removed(_ name: String) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard state.present.remove(name) != nil else { return }
            state.absences[name, default: []].append((now, nil))
        }
    }

    func wasWritten(_ name: String, attempts: Int) -> Bool {
        state.withLock { $0.written[name]?.contains(attempts) ?? false }
    }

    /// Whether the store may have dropped `name` by `now`: its latest
    /// deliberate removal at least a quiet period old lasted at least a
    /// quiet period.
    func mayBeRemoved(_ name: String, at now: ContinuousClock.Instant, quiet: Duration) -> Bool {
        state.withLock { state in
            guard let absence = state.absences[name]?.last(where: { $0.removed.advanced(by: quiet) <= now }) else {
                return false
            }
            guard let back = absence.back else { return true }
            return absence.removed.duration(to: back) >= quiet
        }
    }

    func expectedNames() -> [String] { state.withLock { $0.present.sorted() } }
}

/// The directory and the operations on it.
struct ChaosWorld {
    static let plainNames = (0..<6).map { "p\($0)" }
    /// Files of the config map layout (symlinks through `..data`); never
    /// removed, only changed by `..data` swaps.
    static let configMapNames = ["cm0", "cm1"]

    enum Content: Equatable {
        case valid(Int)
        case broken
    }

    let base: String
    /// The path the store watches; a directory or a symlink to one.
    let directory: String
    let truth = ChaosTruth()
    var rng: SplitMix64
    /// The plain files there now, with what they hold.
    var files: [String: Content] = [:]
    var configMap: [String: Int] = [:]
    var unreadable: Set<String> = []
    var nextAttempts = 1
    var version = 0
    var operations: [String: Int] = [:]

    init(base: String, seed: UInt64) {
        self.base = base
        self.directory = base + "/policies"
        self.rng = SplitMix64(seed: seed)
    }

    mutating func attempts() -> Int {
        defer { nextAttempts = nextAttempts % 9_999 + 1 }
        return nextAttempts
    }

    /// `attempts` first: no prefix of a file being written loads.
    static func text(_ name: String, _ content: Content) -> String {
        switch content {
        case .valid(let attempts): "attempts: \(attempts)\nname: \(name)\n"
        case .broken: "attempts: broken\nname: \(name)\n"
        }
    }

    mutating func populate() throws {
        for name in Self.plainNames { files[name] = .valid(attempts()) }
        for name in Self.configMapNames { configMap[name] = attempts() }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        try fill(directory)
        for (name, content) in files { if case .valid(let a) = content { truth.wrote(name, attempts: a) } }
        for (name, a) in configMap { truth.wrote(name, attempts: a) }
    }

    /// Writes the whole model into the (new, empty) directory `path`.
    func fill(_ path: String) throws {
        for (name, content) in files { try Self.write(path + "/" + name + ".yaml", Self.text(name, content)) }
        try writeConfigMapData(in: path, version: version)
        try FileManager.default.createSymbolicLink(atPath: path + "/..data", withDestinationPath: "..v\(version)")
        for name in Self.configMapNames {
            try FileManager.default.createSymbolicLink(atPath: path + "/\(name).yaml", withDestinationPath: "..data/\(name).yaml")
        }
    }

    func writeConfigMapData(in path: String, version: Int) throws {
        try FileManager.default.createDirectory(atPath: path + "/..v\(version)", withIntermediateDirectories: false)
        for (name, a) in configMap { try Self.write(path + "/..v\(version)/\(name).yaml", Self.text(name, .valid(a))) }
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard Glibc.write(fd, bytes, bytes.count) == bytes.count else { throw POSIXError(.EIO) }
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
    mutating func pause(upTo milliseconds: UInt64) async throws {
        try await Task.sleep(for: .milliseconds(Int(rng.next() % (milliseconds + 1))))
    }

    mutating func randomOperation() async throws {
        let kinds = [
            "in-place write", "in-place write", "rename over", "rename over", "invalid edit", "truncate mid-write",
            "delete file", "delete file", "permissions", "config map swap", "directory recreated",
            "directory replaced by symlink", "pause",
        ]
        let kind = pick(kinds)
        operations[kind, default: 0] += 1
        let name = pick(Self.plainNames)
        let path = directory + "/" + name + ".yaml"
        switch kind {
        case "in-place write":
            // Kept open across two writes: the first write's events may
            // end a quiet period while the file is incomplete.
            let a = attempts()
            truth.wrote(name, attempts: a)
            let bytes = Array(Self.text(name, .valid(a)).utf8)
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let half = bytes.count / 2
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, half) }
            if chance(30) { try await pause(upTo: 10) }
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + half, bytes.count - half) }
            close(fd)
            files[name] = .valid(a)
        case "rename over":
            let a = attempts()
            truth.wrote(name, attempts: a)
            try Self.write(directory + "/.\(name).yaml.tmp", Self.text(name, .valid(a)))
            guard rename(directory + "/.\(name).yaml.tmp", path) == 0 else { throw POSIXError(.EIO) }
            files[name] = .valid(a)
        case "invalid edit":
            // Never served: the last good version stays. (A file that
            // never loaded serves nothing, which the model keeps absent.)
            guard files[name] != nil else { return }
            try Self.write(path, Self.text(name, .broken))
            files[name] = .broken
        case "truncate mid-write":
            guard files[name] != nil else { return }
            let a = attempts()
            truth.wrote(name, attempts: a)
            let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            // Zero bytes for longer than a quiet period, at times.
            try await pause(upTo: 80)
            let bytes = Array(Self.text(name, .valid(a)).utf8)
            _ = Glibc.write(fd, bytes, bytes.count)
            close(fd)
            files[name] = .valid(a)
        case "delete file":
            guard files[name] != nil else { return }
            truth.removed(name)
            unlink(path)
            files[name] = nil
            unreadable.remove(name)
        case "permissions":
            guard files[name] != nil else { return }
            if unreadable.remove(name) != nil {
                chmod(path, 0o644)
            } else {
                chmod(path, 0o000)
                unreadable.insert(name)
            }
        case "config map swap":
            for cm in Self.configMapNames {
                let a = attempts()
                configMap[cm] = a
                truth.wrote(cm, attempts: a)
            }
            let old = version
            version += 1
            try writeConfigMapData(in: directory, version: version)
            try FileManager.default.createSymbolicLink(atPath: directory + "/..data_tmp", withDestinationPath: "..v\(version)")
            guard rename(directory + "/..data_tmp", directory + "/..data") == 0 else { throw POSIXError(.EIO) }
            try FileManager.default.removeItem(atPath: directory + "/..v\(old)")
        case "directory recreated", "directory replaced by symlink":
            // `rm -rf dir && mkdir dir && cp ...`, or the same with the
            // new directory elsewhere and a symlink at the path.
            try removeDirectory()
            unreadable.removeAll()
            if kind == "directory recreated" {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                try fill(directory)
            } else {
                let release = base + "/release-\(rng.next() % 1_000_000)"
                try FileManager.default.createDirectory(atPath: release, withIntermediateDirectories: false)
                try FileManager.default.createSymbolicLink(atPath: directory, withDestinationPath: release)
                try fill(release)
            }
        default:
            try await pause(upTo: 150)
        }
        try await pause(upTo: 15)
    }

    /// Removes the directory (and, when the path is a symlink, the
    /// directory it leads to).
    func removeDirectory() throws {
        let fm = FileManager.default
        if let target = try? fm.destinationOfSymbolicLink(atPath: directory) {
            try fm.removeItem(atPath: directory)
            try fm.removeItem(atPath: target)
        } else {
            try fm.removeItem(atPath: directory)
        }
    }

    /// Every file valid and readable.
    mutating func settle() throws {
        for name in unreadable { chmod(directory + "/" + name + ".yaml", 0o644) }
        unreadable.removeAll()
        for (name, content) in files where content == .broken {
            let a = attempts()
            truth.wrote(name, attempts: a)
            try Self.write(directory + "/" + name + ".yaml", Self.text(name, .valid(a)))
            files[name] = .valid(a)
        }
    }
}

extension Logger {
    /// Logs nothing.
    static var quiet: Logger { Logger(label: "quiet", factory: { _ in SwiftLogNoOpLogHandler() }) }
}

#endif
