import Foundation
import RetryPolicyCore
import RetryPolicyExecutor
import Synchronization
import Testing

/// A loader for a tiny `key: value` policy format, so that the store's
/// reload behaviour is tested apart from the YAML loader: `name`,
/// `attempts`; anything else is an error located at its line.
let lineLoader = PolicyFileLoader { path in
    guard let data = FileManager.default.contents(atPath: path) else {
        return .failure(PolicyFileProblem(path: path, diagnostics: ["\(path):1:1: error: cannot read file"]))
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
                path: path, diagnostics: ["\(path):\(index + 1):1: error: expected 'name: X' or 'attempts: N', found '\(line)'"]))
        }
    }
    guard let name else { return .failure(PolicyFileProblem(path: path, diagnostics: ["\(path):1:1: error: missing 'name'"])) }
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
        let reported = Mutex<[PolicyFileProblem]>([])
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
        #expect(problem.diagnostics == ["\(directory)/tmdb.yaml:2:1: error: expected 'name: X' or 'attempts: N', found 'attemps: 5'"])
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
        #expect(store.snapshot.problems[directory + "/b.yaml"]?.diagnostics.first?.contains("already used") == true)
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
                    while !flags.stop.load(ordering: .acquiring) {
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
            flags.stop.store(true, ordering: .releasing)
            try await group.waitForAll()
        }
        #expect(flags.anomalies.load(ordering: .relaxed) == 0)
        #expect(flags.reads.load(ordering: .relaxed) > 0)
        #expect(store.decider(named: "p")?.policy.attempts == 49)  // round 50 wrote a broken file
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
    let stop = Atomic(false)
    let anomalies = Atomic(0)
    let reads = Atomic(0)
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
        let first = try #require(problem.diagnostics.first)
        #expect(first.hasPrefix(directory + "/tmdb.yaml:3:1: error:"), "\(first)")
        #expect(first.contains("attempts"))

        try write("tmdb.yaml", Self.valid.replacingOccurrences(of: "attempts: 4", with: "attempts: 5"))
        #expect(store.reload().changed == ["tmdb"])
        #expect(store.decider(named: "tmdb")?.policy.attempts == 5)
        #expect(store.snapshot.problems.isEmpty)
    }
}
