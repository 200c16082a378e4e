import CoreMetrics
import Foundation
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyStore
import RetryPolicyTesting
import Testing

/// A loader for a tiny `key: value` policy format, so that the store's
/// reload behaviour is tested apart from the YAML loader: `name`,
/// `attempts`; anything else is an error located at its line.
let lineLoader = PolicyFileLoader { path in
    guard let data = FileManager.default.contents(atPath: path) else {
        return .failure(PolicyFileProblem(path: path, message: "cannot read file"))
    }
    var name: String?
    var attempts = 1
    for (index, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
        let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        switch (parts.first, parts.count) {
        case ("name", 2): name = parts[1]
        case ("attempts", 2) where Int(parts[1]) != nil: attempts = Int(parts[1])!
        default:
            return .failure(PolicyFileProblem(
                path: path,
                diagnostics: [
                    Diagnostic(
                        location: SourceLocation(file: path, line: index + 1, column: 1),
                        message: "expected 'name: X' or 'attempts: N', found '\(line)'")
                ]))
        }
    }
    guard let name else { return .failure(PolicyFileProblem(path: path, message: "missing 'name'")) }
    return .success(Policy(name: name, attempts: attempts, location: SourceLocation(file: path, line: 1, column: 1)))
}

@Suite("PolicyStore: a directory of policies, reloaded safely")
struct PolicyStoreTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "policy-store-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func write(_ file: String, _ text: String) throws {
        try text.write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
    }

    @Test("loads every policy file of the directory, skipping policy tests and other files")
    func loadsDirectory() throws {
        try write("tmdb.yaml", "name: tmdb\nattempts: 4\n")
        try write("sdk.yml", "name: ios-sdk\nattempts: 1\n")
        try write("tmdb.tests.yaml", "not a policy")
        try write("README.md", "not a policy")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        #expect(store.snapshot.policyNames == ["ios-sdk", "tmdb"])
        #expect(store.decider(named: "tmdb")?.policy.attempts == 4)
        #expect(store.snapshot.problems.isEmpty)
    }

    @Test("the YAML loader confines the store to its directory: links and extends that lead out are problems, never read")
    func confinedToDirectory() throws {
        let outside = directory + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let policy = "version: 1\nname: NAME\nattempts: 2\ndefault: {error: internal_error, action: stop}\n"
        try policy.replacingOccurrences(of: "NAME", with: "secret")
            .write(toFile: outside + "/secret.yaml", atomically: true, encoding: .utf8)
        try write("ok.yaml", policy.replacingOccurrences(of: "NAME", with: "ok"))
        try write("ext.yaml", "version: 1\nname: ext\nextends: ../\((outside as NSString).lastPathComponent)/secret.yaml\n")
        try FileManager.default.createSymbolicLink(atPath: directory + "/leak.yaml", withDestinationPath: outside + "/secret.yaml")
        let store = PolicyStore(directory: directory, loader: .yaml())
        #expect(store.snapshot.policyNames == ["ok"])
        for name in ["leak.yaml", "ext.yaml"] {
            let problem = store.snapshot.problems[directory + "/" + name]
            #expect(problem?.description.contains("[RP009]") == true, "\(name): \(String(describing: problem))")
        }
        #expect(store.snapshot.problems[directory + "/ext.yaml"]?.description.contains("ext.yaml:3:10") == true)
    }

    @Test("an invalid edit keeps the last good policy in service and reports located diagnostics")
    func invalidEditKeepsLastGood() throws {
        try write("tmdb.yaml", "name: tmdb\nattempts: 4\n")
        let reported = LockedValue<[PolicyFileProblem]>([])
        let store = PolicyStore(directory: directory, loader: lineLoader, onProblems: { problems in
            reported.withLock { $0 += problems }
        })
        let before = store.decider(named: "tmdb")

        try write("tmdb.yaml", "name: tmdb\nattemps: 5\n")
        let report = store.reload()
        #expect(report.filesChanged)
        #expect(report.changed.isEmpty)
        #expect(store.decider(named: "tmdb")?.policy.attempts == 4)
        let problem = try #require(store.snapshot.problems[directory + "/tmdb.yaml"])
        #expect(problem.diagnostics.map(\.description) == ["\(directory)/tmdb.yaml:2:1: error: expected 'name: X' or 'attempts: N', found 'attemps: 5'"])
        #expect(reported.withLock { $0 } == [problem])
        #expect(store.decider(named: "tmdb")?.cooldown === before?.cooldown)

        try write("tmdb.yaml", "name: tmdb\nattempts: 5\n")
        let fixed = store.reload()
        #expect(fixed.changed == ["tmdb"])
        #expect(store.decider(named: "tmdb")?.policy.attempts == 5)
        #expect(store.snapshot.problems.isEmpty)
    }

    @Test("a file that never loaded serves nothing but is reported; deleting a file removes its policy")
    func addAndRemove() throws {
        try write("a.yaml", "name: a\n")
        try write("broken.yaml", "attempts: x\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        #expect(store.snapshot.policyNames == ["a"])
        #expect(store.snapshot.problems.keys.sorted() == [directory + "/broken.yaml"])

        try FileManager.default.removeItem(atPath: directory + "/a.yaml")
        try write("b.yaml", "name: b\n")
        let report = store.reload()
        #expect(report.added == ["b"])
        #expect(report.removed == ["a"])
        #expect(store.snapshot.policyNames == ["b"])
    }

    @Test("an unchanged directory is not reloaded, and an unchanged policy keeps its decider and budget")
    func unchangedKeepsDecider() throws {
        try write("a.yaml", "name: a\n")
        try write("b.yaml", "name: b\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let generation = store.snapshot.generation
        #expect(!store.reload().filesChanged)
        #expect(store.snapshot.generation == generation)

        let a = store.decider(named: "a")
        try write("b.yaml", "name: b\nattempts: 2\n")
        #expect(store.reload().changed == ["b"])
        #expect(store.decider(named: "a")?.cooldown === a?.cooldown)
    }

    @Test("two files with the same policy name: the first is served and the second reported")
    func duplicateNames() throws {
        try write("a.yaml", "name: same\nattempts: 2\n")
        try write("b.yaml", "name: same\nattempts: 3\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        #expect(store.decider(named: "same")?.policy.attempts == 2)
        #expect(store.snapshot.problems[directory + "/b.yaml"]?.diagnostics.first?.message.contains("already used") == true)
    }

    @Test("a duplicate policy name is one error located at the second file's policy, the quoted name escaped")
    func duplicateNameDiagnostic() throws {
        try write("a.yaml", PolicyStoreYAMLTests.valid)
        try write("b.yaml", "# a copy\n" + PolicyStoreYAMLTests.valid)
        let yaml = PolicyStore(directory: directory, loader: .yaml())
        #expect(
            yaml.snapshot.problems[directory + "/b.yaml"]?.description
                == "\(directory)/b.yaml:2:1: error: policy name 'tmdb' is already used by \(directory)/a.yaml; this file is ignored")

        // The line loader places each policy at its file's start.
        try write("a.yaml", "name: same\u{1B}[2J\n")
        try write("b.yaml", "name: same\u{1B}[2J\n")
        let lines = PolicyStore(directory: directory, loader: lineLoader)
        #expect(
            lines.snapshot.problems[directory + "/b.yaml"]?.description
                == "\(directory)/b.yaml:1:1: error: policy name 'same\\u{1B}[2J' is already used by \(directory)/a.yaml; this file is ignored")
    }

    @Test("concurrent readers always see a whole, valid generation while files change and reload")
    func concurrentReadersDuringReloads() async throws {
        try write("p.yaml", "name: p\nattempts: 1\n")
        try write("q.yaml", "name: q\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let flags = ReaderFlags()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var lastGeneration = 0
                    while !flags.stop.withLock({ $0 }) {
                        let snapshot = store.snapshot
                        // Both files are always written with the same
                        // attempts, but reloads read them one at a time;
                        // what matters is that each is a valid policy and
                        // generations never go back.
                        guard let p = snapshot.deciders["p"], let q = snapshot.deciders["q"],
                            (1...50).contains(p.policy.attempts), (1...50).contains(q.policy.attempts),
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
            for round in 1...50 {
                if round % 5 == 0 {
                    try write("p.yaml", "name: p\nattempts: broken\n")  // never served
                } else {
                    try write("p.yaml", "name: p\nattempts: \(round)\n")
                    try write("q.yaml", "name: q\nattempts: \(round)\n")
                }
                store.reload()
                await Task.yield()
            }
            flags.stop.withLock { $0 = true }
            try await group.waitForAll()
        }
        #expect(flags.anomalies.load(ordering: .relaxed) == 0)
        #expect(flags.reads.load(ordering: .relaxed) > 0)
        #expect(store.decider(named: "p")?.policy.attempts == 49)  // round 50 wrote a broken file
    }

    @Test("health: generation, last reload and change, problems and since when, watch mode; and the same as gauges")
    func health() throws {
        try write("a.yaml", "name: a\n")
        let metrics = GaugeRecorder()
        let before = Date()
        let store = PolicyStore(directory: directory, loader: lineLoader, metricsFactory: metrics)
        var health = store.health
        #expect(health.generation == 1)
        #expect(health.policies == 1)
        #expect(health.problems.isEmpty && health.staleSince == nil && !health.isStale(for: .zero))
        #expect(health.watchMode == .notWatching)
        let loaded = try #require(health.lastReload)
        #expect(loaded >= before && health.lastChange == loaded)
        let dimensions = ["retry_policy.store.directory": directory]
        #expect(metrics.value("retry_policy.store.generation", dimensions) == 1)
        #expect(metrics.value("retry_policy.store.policies", dimensions) == 1)
        #expect(metrics.value("retry_policy.store.stale_since.timestamp", dimensions) == 0)
        #expect(metrics.value("retry_policy.store.watching", dimensions) == 0)
        #expect(metrics.value("retry_policy.store.last_reload.timestamp", dimensions) == loaded.timeIntervalSince1970)

        // An edit that does not load: the last good version is served,
        // stale from now on, until the file is fixed.
        try write("a.yaml", "name: a\nattempts: x\n")
        store.reload()
        health = store.health
        let since = try #require(health.staleSince)
        #expect(health.problems.keys.sorted() == [directory + "/a.yaml"])
        #expect(health.isStale(for: .seconds(600), at: since.addingTimeInterval(600)))
        #expect(!health.isStale(for: .seconds(600), at: since.addingTimeInterval(599)))
        #expect(metrics.value("retry_policy.store.problem_files", dimensions) == 1)
        #expect(metrics.value("retry_policy.store.stale_since.timestamp", dimensions) == since.timeIntervalSince1970)
        store.reload()
        #expect(store.health.staleSince == since, "still stale since the first failing reload")
        #expect(try #require(store.health.lastReload) >= since)

        try write("a.yaml", "name: a\nattempts: 2\n")
        store.reload()
        #expect(store.health.staleSince == nil)
        #expect(store.health.generation == 3)
        #expect(metrics.value("retry_policy.store.problem_files", dimensions) == 0)
        #expect(metrics.value("retry_policy.store.stale_since.timestamp", dimensions) == 0)
        #expect(metrics.value("retry_policy.store.generation", dimensions) == 3)

        // A directory that cannot be read is stale too, and not a reload.
        let lastReload = store.health.lastReload
        try FileManager.default.removeItem(atPath: directory)
        store.reload()
        #expect(store.health.staleSince != nil)
        #expect(
            store.snapshot.problems[directory]?.description
                == "\(directory):1:1: error: the policy directory cannot be listed (it does not exist, is not a directory or is not readable); the policies loaded before stay in service"
        )
        #expect(store.health.lastReload == lastReload)
        #expect(store.health.policies == 1)
    }

    @Test("polling removes a deleted file at the next poll that still misses it, not at the first")
    func pollingConfirmsRemovals() async throws {
        try write("a.yaml", "name: a\n")
        try write("b.yaml", "name: b\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let clock = ManualClock()
        let watcher = Task { await store.watch(every: .seconds(2), clock: clock) }
        await clock.sleepers(atLeast: 1)
        try FileManager.default.removeItem(atPath: directory + "/a.yaml")
        clock.advance(by: .seconds(2))
        await clock.sleepers(atLeast: 1)
        #expect(store.decider(named: "a") != nil)
        #expect(store.snapshot.pendingRemovals == ["a"])
        clock.advance(by: .seconds(2))
        await clock.sleepers(atLeast: 1)
        #expect(store.decider(named: "a") == nil)
        #expect(store.snapshot.policyNames == ["b"])
        #expect(store.snapshot.pendingRemovals.isEmpty)
        watcher.cancel()
        await watcher.value
    }

    @Test("watch polls on its clock and picks up an edit after one interval")
    func watchPolls() async throws {
        try write("a.yaml", "name: a\nattempts: 1\n")
        let store = PolicyStore(directory: directory, loader: lineLoader)
        let clock = ManualClock()
        let watcher = Task { await store.watch(every: .seconds(2), clock: clock) }
        await clock.sleepers(atLeast: 1)
        try write("a.yaml", "name: a\nattempts: 3\n")
        #expect(store.decider(named: "a")?.policy.attempts == 1)
        clock.advance(by: .seconds(2))
        await clock.sleepers(atLeast: 1)  // the watcher reloaded and sleeps again
        #expect(store.decider(named: "a")?.policy.attempts == 3)
        watcher.cancel()
        await watcher.value
    }
}

/// Shared state of the concurrent-reader test.
final class ReaderFlags: Sendable {
    let stop = LockedValue(false)
    let anomalies = AtomicInt64(0)
    let reads = AtomicInt64(0)
}

@Suite("PolicyStore with the YAML loader")
struct PolicyStoreYAMLTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "policy-store-yaml-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func write(_ file: String, _ text: String) throws {
        try text.write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
    }

    static let valid = """
        version: 1
        name: tmdb
        attempts: 4
        backoff: {initial: 1s, max: 30s, jitter: full}
        retry_after: {cap: 60s}
        rules:
          - {status: 429, error: status_429, action: retry}
          - {status: 5xx, error: status_5xx, action: retry}

        """

    @Test("the shipped policies directory loads completely")
    func shippedPolicies() throws {
        let policies = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("policies").path
        let store = PolicyStore(directory: policies, loader: .yaml())
        #expect(store.snapshot.problems.isEmpty, "\(store.snapshot.problems.values.map(\.description))")
        #expect(store.snapshot.policyNames.contains("tmdb"))
        #expect(store.decider(named: "tmdb")?.policy.attempts == 4)
    }

    @Test("a typo in a YAML edit keeps the last good policy and reports the loader's located diagnostic")
    func yamlTypo() throws {
        try write("tmdb.yaml", Self.valid)
        let store = PolicyStore(directory: directory, loader: .yaml())
        #expect(store.decider(named: "tmdb")?.policy.attempts == 4)

        try write("tmdb.yaml", Self.valid.replacingOccurrences(of: "attempts: 4", with: "attemps: 5"))
        store.reload()
        #expect(store.decider(named: "tmdb")?.policy.attempts == 4)
        let problem = try #require(store.snapshot.problems[directory + "/tmdb.yaml"])
        let first = try #require(problem.diagnostics.first?.description)
        #expect(first.hasPrefix(directory + "/tmdb.yaml:3:1: error:"), "\(first)")
        #expect(first.contains("attempts"))

        try write("tmdb.yaml", Self.valid.replacingOccurrences(of: "attempts: 4", with: "attempts: 5"))
        #expect(store.reload().changed == ["tmdb"])
        #expect(store.decider(named: "tmdb")?.policy.attempts == 5)
        #expect(store.snapshot.problems.isEmpty)
    }
}

/// A metrics backend that remembers the last value of every gauge.
final class GaugeRecorder: MetricsFactory, Sendable {
    private let values = LockedValue<[String: Double]>([:])

    private static func key(_ label: String, _ dimensions: [String: String]) -> String {
        label + dimensions.sorted { $0.key < $1.key }.map { "|\($0.key)=\($0.value)" }.joined()
    }

    func value(_ label: String, _ dimensions: [String: String]) -> Double? {
        values.withLock { $0[Self.key(label, dimensions)] }
    }

    final class Box: RecorderHandler, CounterHandler, TimerHandler, Sendable {
        let key: String
        let owner: GaugeRecorder
        init(key: String, owner: GaugeRecorder) { self.key = key; self.owner = owner }
        func record(_ value: Int64) { record(Double(value)) }
        func record(_ value: Double) { owner.values.withLock { $0[key] = value } }
        func increment(by amount: Int64) {}
        func reset() {}
        func recordNanoseconds(_ duration: Int64) {}
    }

    private func box(_ label: String, _ dimensions: [(String, String)]) -> Box {
        Box(key: Self.key(label, Dictionary(dimensions, uniquingKeysWith: { $1 })), owner: self)
    }
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { box(label, dimensions) }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        box(label, dimensions)
    }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { box(label, dimensions) }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
