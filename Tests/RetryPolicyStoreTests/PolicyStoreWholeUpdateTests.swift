#if canImport(Glibc)
import Foundation
import Glibc
import Logging
import RetryPolicyCore
@testable import RetryPolicyStore
import Testing

/// The two ways a writer publishes a generation over time, against the
/// property every reader relies on: each generation the store serves is
/// one whole update, never a mix of two and never a prefix of one.
///
/// Seeded: the seed is printed; `POLICY_STORE_UPDATE_SEED=<n>` repeats a
/// run's sequence of writes (the interleaving with the store's thread is
/// the scheduler's). Nothing waits for a fixed time: the tests wait on
/// conditions, and the property holds at every read whatever the timing.
@Suite("PolicyStore: every generation served is one whole update", .serialized, .timeLimit(.minutes(3)))
struct PolicyStoreWholeUpdateTests {
    let directory: String
    let seed: UInt64

    init() throws {
        directory = NSTemporaryDirectory() + "policy-store-whole-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        seed = ProcessInfo.processInfo.environment["POLICY_STORE_UPDATE_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 0...UInt64.max)
    }

    // MARK: Config maps

    @Test("a `..data` swap during a reload's reads never serves a mix of two updates, under a watch")
    func swapsDuringReloads() async throws {
        print("PolicyStoreWholeUpdateTests.swapsDuringReloads: seed \(seed) (POLICY_STORE_UPDATE_SEED=\(seed) repeats it)")
        let configMap = try ConfigMap(directory: directory, names: (0..<6).map { "p\($0)" }, seed: seed, swaps: 100)
        // Once watching, the loader swaps `..data` now and then while the
        // store reads: swaps land inside reloads, between one file and the
        // next.
        let swapping = LockedValue(false)
        let loader = PolicyFileLoader { path in
            if swapping.withLock({ $0 }) { configMap.maybeSwap(oneIn: 12) }
            return lineLoader.load(path)
        }
        let store = PolicyStore(directory: directory, loader: loader, logger: Logger.quiet)
        #expect(try configMap.wholeUpdate(store.snapshot) == 1)
        let log = StoreEventLog.recording(store)
        let watch = Task {
            await store.watch(debounce: .milliseconds(20), rescanEvery: .milliseconds(15), pollingFallback: .seconds(5))
        }
        try await log.wait("the watch to start") { _ in !log.reloads(.watchStarted).isEmpty }
        swapping.withLock { $0 = true }

        let violations = LockedValue<[String]>([])
        let stop = LockedValue(false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    while !stop.withLock({ $0 }) {
                        do { _ = try configMap.wholeUpdate(store.snapshot) } catch {
                            violations.withLock { $0.append("\(error)") }
                        }
                        await Task.yield()
                    }
                }
            }
            // Swaps between reloads too, each followed by a reload (whose
            // reads the loader may swap under), until all are done.
            var rng = SplitMix64(seed: seed ^ 0x5eed)
            func reloadsSoFar() -> Int { log.events.count { if case .reloaded = $0 { true } else { false } } }
            while configMap.swapsLeft > 0 {
                let before = reloadsSoFar()
                configMap.maybeSwap(oneIn: 1)
                try await log.wait("a reload after the swap") { _ in reloadsSoFar() > before }
                try await Task.sleep(for: .microseconds(Int.random(in: 0...5_000, using: &rng)))
            }
            try await log.wait("the store to serve the last update") { _ in
                (try? configMap.wholeUpdate(store.snapshot)) == configMap.latest && store.snapshot.problems.isEmpty
            }
            stop.withLock { $0 = true }
            try await group.waitForAll()
        }
        watch.cancel()
        await watch.value
        #expect(violations.withLock { $0 }.isEmpty, "seed \(seed): \(violations.withLock { Array($0.prefix(5)) })")
        #expect(store.health.problems.isEmpty && store.health.staleSince == nil)
    }

    @Test("a swap during a reload is read again; swaps during every read keep the previous generation, reported in health")
    func swapDuringOnDemandReload() throws {
        let configMap = try ConfigMap(directory: directory, names: ["a", "b", "c"], seed: seed, swaps: 20)
        let swapping = LockedValue(0)
        let loader = PolicyFileLoader { path in
            // `swapping` swaps left to make, one at the start of each read
            // of the first file.
            if path.hasSuffix("/a.yaml"), swapping.withLock({ left in
                defer { left = max(left - 1, 0) }
                return left > 0
            }) {
                configMap.maybeSwap(oneIn: 1)
            }
            return lineLoader.load(path)
        }
        let store = PolicyStore(directory: directory, loader: loader, logger: Logger.quiet)
        #expect(try configMap.wholeUpdate(store.snapshot) == 1)

        // One swap during the read: read again, the new update whole.
        configMap.maybeSwap(oneIn: 1)
        swapping.withLock { $0 = 1 }
        store.reload()
        #expect(try configMap.wholeUpdate(store.snapshot) == configMap.latest)
        #expect(store.snapshot.problems.isEmpty)

        // A swap during every read: the previous generation stays, and
        // health says so together with the snapshot it describes.
        let before = try configMap.wholeUpdate(store.snapshot)
        configMap.maybeSwap(oneIn: 1)
        swapping.withLock { $0 = PolicyDirectoryReader.readAttempts }
        let report = store.reload()
        #expect(report.problems.map(\.path) == [directory])
        #expect(try configMap.wholeUpdate(store.snapshot) == before)
        let health = store.health
        #expect(health.problems.keys.sorted() == [directory])
        #expect(health.staleSince != nil)
        #expect(health.generation == store.snapshot.generation)

        // Quiet again: the latest update, and no longer stale.
        store.reload()
        #expect(try configMap.wholeUpdate(store.snapshot) == configMap.latest)
        #expect(store.health.problems.isEmpty && store.health.staleSince == nil)
    }

    // MARK: Writers in place

    @Test("a file rewritten in place in chunks is never served half-written, whatever triggers the reloads")
    func chunkedWrites() async throws {
        print("PolicyStoreWholeUpdateTests.chunkedWrites: seed \(seed) (POLICY_STORE_UPDATE_SEED=\(seed) repeats it)")
        let updates = 2...13
        func text(_ update: Int) -> String {
            "name: w\n" + String(repeating: "pad: \(String(repeating: "x", count: 40))\n", count: 8) + "attempts: \(update)\n"
        }
        try write("w.yaml", text(updates.lowerBound))
        try write("o.yaml", "name: o\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: prefixLoader, logger: Logger.quiet)
        #expect(store.decider(named: "w")?.policy.attempts == updates.lowerBound)
        let log = StoreEventLog.recording(store)
        // Re-scans every few milliseconds and another file's events:
        // reloads that the chunked file's own quiet period does not start.
        // The quiet period is long against the writer's pauses (1-20 ms,
        // and up to 50 ms between updates), so that a loaded machine
        // stalling the writer does not stretch a pause past it, which
        // would make a prefix indistinguishable from a whole file.
        let quiet = Duration.seconds(1)
        let watch = Task {
            await store.watch(debounce: quiet, rescanEvery: .milliseconds(10), pollingFallback: .seconds(5))
        }
        try await log.wait("the watch to start") { _ in !log.reloads(.watchStarted).isEmpty }

        let violations = LockedValue<[String]>([])
        let stop = LockedValue(false)
        var rng = SplitMix64(seed: seed)
        let otherSeed = rng.next()
        let otherWrites = LockedValue(1)
        let writing = LockedValue(true)
        // Re-scans made between two chunks, so that some surely land
        // mid-write: the watch's own may wait behind the quiet period.
        var midWriteRescans = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    while !stop.withLock({ $0 }) {
                        let attempts = store.decider(named: "w")?.policy.attempts ?? 0
                        if !updates.contains(attempts) {
                            violations.withLock { $0.append("served w with attempts \(attempts): not a whole update") }
                        }
                        await Task.yield()
                    }
                }
            }
            group.addTask { [directory] in
                var rng = SplitMix64(seed: otherSeed)
                while writing.withLock({ $0 }) {
                    let count = otherWrites.withLock { count in
                        count += 1
                        return count
                    }
                    try ChaosWorld.write(directory + "/o.yaml", "name: o\nattempts: \(count)\n")
                    try await Task.sleep(for: .milliseconds(Int.random(in: 5...15, using: &rng)))
                }
            }
            for update in updates.dropFirst() {
                let bytes = Array(text(update).utf8)
                let fd = open(directory + "/w.yaml", O_WRONLY | O_TRUNC | O_CLOEXEC)
                try #require(fd >= 0)
                var cuts = (0..<Int.random(in: 4...9, using: &rng)).map { _ in Int.random(in: 1..<bytes.count, using: &rng) }
                cuts = (cuts + [0, bytes.count]).sorted()
                for (from, to) in zip(cuts, cuts.dropFirst()) where from < to {
                    try await Task.sleep(for: .milliseconds(Int.random(in: 1...20, using: &rng)))
                    #expect(bytes[from..<to].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == to - from)
                    guard to < bytes.count, Bool.random(using: &rng) else { continue }
                    let report = store.reload(cause: .rescan, removals: .deferred(confirmingUpTo: nil), quiet: quiet)
                    midWriteRescans += 1
                    #expect(report.deferred.contains(directory + "/w.yaml"), "seed \(seed): a re-scan read w mid-write")
                }
                close(fd)
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...50, using: &rng)))
            }
            // The other file stops; both settle on their last whole update.
            writing.withLock { $0 = false }
            try await log.wait("w's last update") { _ in store.decider(named: "w")?.policy.attempts == updates.upperBound }
            stop.withLock { $0 = true }
            try await group.waitForAll()
        }
        let last = otherWrites.withLock { $0 }
        try await log.wait("o's last update") { _ in store.decider(named: "o")?.policy.attempts == last }
        watch.cancel()
        await watch.value
        #expect(violations.withLock { $0 }.isEmpty, "seed \(seed): \(violations.withLock { Array($0.prefix(5)) })")
        #expect(midWriteRescans > 0)
    }

    // MARK: Helpers

    func write(_ name: String, _ text: String) throws { try ChaosWorld.write(directory + "/" + name, text) }
}

/// Loads any prefix of a policy that ends at a line: `name: X`,
/// `attempts: N` and `pad: ...` lines, an unfinished last line ignored. A
/// half-written file loads (with the attempts it has so far, 1 before its
/// `attempts` line), so serving one would show.
let prefixLoader = PolicyFileLoader { path in
    guard let data = FileManager.default.contents(atPath: path) else {
        return .failure(PolicyFileProblem(path: path, message: "cannot read file"))
    }
    var name: String?
    var attempts = 1
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
        let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        switch (parts.first, parts.count) {
        case ("name", 2): name = parts[1]
        case ("attempts", 2) where Int(parts[1]) != nil: attempts = Int(parts[1])!
        case ("pad", 2): continue
        default: return .failure(PolicyFileProblem(path: path, message: "unexpected '\(line)'"))
        }
    }
    guard let name else { return .failure(PolicyFileProblem(path: path, message: "missing 'name'")) }
    return .success(Policy(name: name, attempts: attempts, location: SourceLocation(file: path, line: 1, column: 1)))
}

/// A directory as the kubelet writes a config map: each `NAME.yaml` a link
/// to `..data/NAME.yaml`, `..data` a link to a timestamped directory. An
/// update writes a new timestamped directory, renames a new `..data_tmp`
/// link over `..data` and removes the old directory. Update `n` gives
/// every policy `attempts: n`, so a mix of two updates shows.
final class ConfigMap: Sendable {
    private struct State {
        var rng: SplitMix64
        var latest = 1
        var swapsLeft: Int
    }

    let directory: String
    let names: [String]
    private let state: LockedValue<State>

    init(directory: String, names: [String], seed: UInt64, swaps: Int) throws {
        self.directory = directory
        self.names = names
        state = LockedValue(State(rng: SplitMix64(seed: seed), swapsLeft: swaps))
        try writeUpdate(1)
        guard symlink(Self.dataDirectory(1), directory + "/..data") == 0 else { throw POSIXError(.EIO) }
        for name in names {
            guard symlink("..data/\(name).yaml", directory + "/\(name).yaml") == 0 else { throw POSIXError(.EIO) }
        }
    }

    var latest: Int { state.withLock { $0.latest } }
    var swapsLeft: Int { state.withLock { $0.swapsLeft } }

    static func dataDirectory(_ update: Int) -> String { "..2026_11_26_\(String(update + 100_000)).\(update)" }

    private func writeUpdate(_ update: Int) throws {
        let path = directory + "/" + Self.dataDirectory(update)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        for name in names {
            try ChaosWorld.write(path + "/\(name).yaml", "name: \(name)\nattempts: \(update)\n")
        }
    }

    /// Swaps in the next update, with a chance of one in `oneIn`, while
    /// swaps are left.
    func maybeSwap(oneIn: Int) {
        state.withLock { state in
            guard state.swapsLeft > 0, Int.random(in: 0..<oneIn, using: &state.rng) == 0 else { return }
            state.swapsLeft -= 1
            let next = state.latest + 1
            do {
                try writeUpdate(next)
            } catch {
                Issue.record("cannot write update \(next): \(error)")
                return
            }
            unlink(directory + "/..data_tmp")
            _ = symlink(Self.dataDirectory(next), directory + "/..data_tmp")
            _ = rename(directory + "/..data_tmp", directory + "/..data")
            try? FileManager.default.removeItem(atPath: directory + "/" + Self.dataDirectory(state.latest))
            state.latest = next
        }
    }

    struct Mixed: Error, CustomStringConvertible {
        var description: String
    }

    /// The update `snapshot` serves whole; throws if it serves a mix, or
    /// misses a policy.
    func wholeUpdate(_ snapshot: PolicyStore.Snapshot) throws -> Int {
        let attempts = Set(names.map { snapshot.deciders[$0]?.policy.attempts ?? 0 })
        guard attempts.count == 1, let update = attempts.first, update > 0 else {
            throw Mixed(description: "generation \(snapshot.generation) serves attempts \(names.map { snapshot.deciders[$0]?.policy.attempts ?? 0 })")
        }
        return update
    }
}
#endif
