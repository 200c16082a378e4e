#if canImport(Glibc)
import Foundation
import Glibc
import Logging
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import Testing

/// How long after a change on disk the store serves it, per kind of change,
/// on real files with the real clock. A measurement, not a check of speed:
/// off unless `POLICY_STORE_LATENCY=1`; prints median and p99 per kind
/// (`POLICY_STORE_LATENCY_ROUNDS`, 30 by default). docs/performance.md has
/// the numbers.
///
///     POLICY_STORE_LATENCY=1 swift test --skip-build --filter PolicyStoreLatency
@Suite(
    "PolicyStore reload latency per kind of change", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["POLICY_STORE_LATENCY"] == "1"))
struct PolicyStoreLatencyTests {
    static let quiet: Duration = .milliseconds(50)

    @Test("measure")
    func measure() async throws {
        let rounds = ProcessInfo.processInfo.environment["POLICY_STORE_LATENCY_ROUNDS"].flatMap(Int.init) ?? 30
        let base = NSTemporaryDirectory() + "policy-store-latency-\(UInt64.random(in: 0...UInt64.max))"
        let directory = base + "/policies"
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: base) }
        var attempts = 1
        func text(_ name: String) -> String {
            attempts += 1
            return "attempts: \(attempts)\nname: \(name)\n"
        }
        try ChaosWorld.write(directory + "/p.yaml", text("p"))
        try fm.createDirectory(atPath: directory + "/..v0", withIntermediateDirectories: false)
        try ChaosWorld.write(directory + "/..v0/cm.yaml", text("cm"))
        try fm.createSymbolicLink(atPath: directory + "/..data", withDestinationPath: "..v0")
        try fm.createSymbolicLink(atPath: directory + "/cm.yaml", withDestinationPath: "..data/cm.yaml")

        let store = PolicyStore(directory: directory, loader: lineLoader, logger: Logger.quiet)
        let log = StoreEventLog.recording(store)
        let watch = Task { await store.watch(debounce: Self.quiet, rescanEvery: .seconds(60), pollingFallback: .seconds(5)) }
        try await log.wait("the watch") { _ in !log.reloads(.watchStarted).isEmpty }

        let clock = ContinuousClock()
        var results: [(String, [Duration])] = []
        /// Runs `change`, then times until `served` holds.
        func time(_ kind: String, _ change: () async throws -> Void, until served: () -> Bool) async throws {
            var samples: [Duration] = []
            for _ in 0..<rounds {
                try await change()
                let start = clock.now
                try await log.wait("\(kind) to be served") { _ in served() }
                samples.append(start.duration(to: clock.now))
                // Let the change's removal checks and stray events pass.
                try await Task.sleep(for: Self.quiet * 3)
            }
            results.append((kind, samples))
        }
        func servedAttempts(_ name: String) -> Int? { store.decider(named: name)?.policy.attempts }

        try await time("in-place write (`>`, closed)", { try ChaosWorld.write(directory + "/p.yaml", text("p")) }) {
            servedAttempts("p") == attempts
        }
        var open: Int32 = -1
        try await time("in-place write, file kept open", {
            if open >= 0 { close(open) }
            open = Glibc.open(directory + "/p.yaml", O_WRONLY | O_TRUNC | O_CLOEXEC)
            let bytes = Array(text("p").utf8)
            _ = Glibc.write(open, bytes, bytes.count)
        }) { servedAttempts("p") == attempts }
        close(open)
        try await time("atomic rename over the file", {
            try ChaosWorld.write(directory + "/.p.tmp", text("p"))
            rename(directory + "/.p.tmp", directory + "/p.yaml")
        }) { servedAttempts("p") == attempts }
        var version = 0
        try await time("config map `..data` swap", {
            version += 1
            try fm.createDirectory(atPath: directory + "/..v\(version)", withIntermediateDirectories: false)
            try ChaosWorld.write(directory + "/..v\(version)/cm.yaml", text("cm"))
            try fm.createSymbolicLink(atPath: directory + "/..data_tmp", withDestinationPath: "..v\(version)")
            rename(directory + "/..data_tmp", directory + "/..data")
            try fm.removeItem(atPath: directory + "/..v\(version - 1)")
        }) { servedAttempts("cm") == attempts }
        try await time("truncated to zero bytes, written 100 ms later", {
            let fd = Glibc.open(directory + "/p.yaml", O_WRONLY | O_TRUNC | O_CLOEXEC)
            try await Task.sleep(for: .milliseconds(100))
            let bytes = Array(text("p").utf8)
            _ = Glibc.write(fd, bytes, bytes.count)
            close(fd)
        }) { servedAttempts("p") == attempts }
        var chunkRNG = SplitMix64(seed: 7)
        try await time("written in place in 5 chunks 1-20 ms apart (from the last chunk)", {
            let fd = Glibc.open(directory + "/p.yaml", O_WRONLY | O_TRUNC | O_CLOEXEC)
            let whole = Array(text("p").utf8)
            let cuts = [0] + (1..<5).map { whole.count * $0 / 5 } + [whole.count]
            for (from, to) in zip(cuts, cuts.dropFirst()) {
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...20, using: &chunkRNG)))
                _ = whole[from..<to].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            }
            close(fd)
        }) { servedAttempts("p") == attempts }
        try await time("file added", { try ChaosWorld.write(directory + "/q.yaml", text("q")) }) {
            servedAttempts("q") == attempts
        }
        try await time("file deleted (removal confirmed)", {
            if store.decider(named: "q") == nil {
                try ChaosWorld.write(directory + "/q.yaml", text("q"))
                try await log.wait("q back") { _ in store.decider(named: "q") != nil }
            }
            unlink(directory + "/q.yaml")
        }) { store.decider(named: "q") == nil }
        let events = { log.reloads(.fileEvent).count }
        var before = 0
        try await time("permissions changed (reload after the event)", {
            before = events()
            chmod(directory + "/p.yaml", 0o600)
            chmod(directory + "/p.yaml", 0o644)
        }) { events() > before }

        // The directory itself: copies of the whole layout.
        func fill(_ path: String) throws {
            try fm.createDirectory(atPath: path, withIntermediateDirectories: false)
            try ChaosWorld.write(path + "/p.yaml", text("p"))
        }
        func removeDirectory() throws {
            if let target = try? fm.destinationOfSymbolicLink(atPath: directory) {
                try fm.removeItem(atPath: directory)
                try fm.removeItem(atPath: target)
            } else {
                try fm.removeItem(atPath: directory)
            }
        }
        try await time("directory deleted and recreated (`rm -rf && mkdir && cp`)", {
            try removeDirectory()
            try fill(directory)
        }) { servedAttempts("p") == attempts }
        var release = 0
        try await time("directory replaced by a symlink to a new one", {
            try removeDirectory()
            release += 1
            try fill(base + "/release-\(release)")
            try fm.createSymbolicLink(atPath: directory, withDestinationPath: base + "/release-\(release)")
        }) { servedAttempts("p") == attempts }

        watch.cancel()
        await watch.value
        print("PolicyStore reload latency, quiet period \(Self.quiet), \(rounds) rounds each:")
        print("| change | median | p99 | max |")
        print("|---|---|---|---|")
        for (kind, samples) in results {
            let sorted = samples.sorted()
            let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
            print("| \(kind) | \(Self.ms(sorted[sorted.count / 2])) | \(Self.ms(p99)) | \(Self.ms(sorted.last!)) |")
        }
    }

    static func ms(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return String(format: "%.0f ms", value)
    }
}

#endif
