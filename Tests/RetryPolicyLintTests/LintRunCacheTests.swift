import Foundation
import RetryPolicyCore
import Testing

@testable import RetryPolicyLint
@testable import RetryPolicyYAML

/// One lint run loads every file once and compares every parity pair once,
/// reports exactly what linting each file on its own reports, and still
/// reads every reference through the root.
@Suite("Lint run cache")
struct LintRunCacheTests {
    static let base = """
        version: 1
        name: base
        timeouts: {per_attempt: 5s, total: 20s}
        default: {error: internal_error, action: stop}

        """

    static func service(_ name: String, partner: String, onTimeout: String) -> String {
        """
        version: 1
        name: \(name)
        extends: base.yaml
        attempts: 3
        backoff: {initial: 100ms, max: 2s, multiplier: 2, jitter: full}
        retry_after: {honor: true, cap: 30s}
        rules:
          - {status: 5xx, error: status_5xx, action: retry}
          - {transport: timeout, error: timeout, action: \(onTimeout)}
        parity: [\(partner)]

        """
    }

    /// A team folder: a base, two parity pairs (one decides alike, one
    /// differs on timeouts) and a stack over three services.
    static func makeTree() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("run-cache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let files = [
            "base.yaml": base,
            "a-ios.yaml": service("a-ios", partner: "a-android.yaml", onTimeout: "retry"),
            "a-android.yaml": service("a-android", partner: "a-ios.yaml", onTimeout: "retry"),
            "b-ios.yaml": service("b-ios", partner: "b-android.yaml", onTimeout: "retry"),
            "b-android.yaml": service("b-android", partner: "b-ios.yaml", onTimeout: "stop"),
            "stack.yaml": """
                version: 1
                name: path
                stack:
                  - {name: app, policy: a-ios.yaml}
                  - {name: api, policy: b-ios.yaml}
                  - {name: gateway, policy: b-android.yaml}
                max_amplification: 5

                """,
        ]
        for (name, text) in files { try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        return directory
    }

    @Test("every file is parsed and decoded once, every parity pair compared once")
    func loadsAndComparesOnce() throws {
        let directory = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = LintRun(root: try PolicyRoot(directory: directory))
        let cache = LintRunCache()
        let report = try run.lint(paths: [directory], cache: cache)
        #expect(report.files.count == 6)
        // 6 documents (each file once, though the services are also
        // partners and layers), 1 extended tree (base.yaml, extended 4
        // times), 2 comparisons (each pair from its first file).
        #expect(cache.loads.misses.withLock { $0.documents } == 6)
        #expect(cache.loads.misses.withLock { $0.trees } == 1)
        #expect(cache.comparisonsMade.withLock { $0 } == 2)
        // The differing pair is reported from both sides, each with its own
        // side first.
        let parity = report.findings.filter { $0.id == "RP115" }
        #expect(parity.count == 2)
        #expect(parity.contains { $0.location.file.hasSuffix("b-ios.yaml") && $0.message.contains("retry after") && $0.message.contains("here, stop: timeout") })
        #expect(parity.contains { $0.location.file.hasSuffix("b-android.yaml") && $0.message.contains("stop: timeout (not_retryable) here, retry after") })
        #expect(report.findings.contains { $0.id == "RP113" })
    }

    @Test("a run reports exactly what linting each file on its own reports")
    func sameFindingsAsSeparateLints() throws {
        let directory = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = LintRun(root: try PolicyRoot(directory: directory))
        let report = try run.lint(paths: [directory])
        var separate: [LintFinding] = []
        for file in report.files { separate += run.lint(file: file) }
        #expect(report.findings == separate)
        #expect(!separate.isEmpty)
    }

    @Test("a cached partner is not used through a reference the root refuses")
    func cacheKeepsConfinement() throws {
        let directory = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A link not named *.yaml to a file the run has loaded already.
        try FileManager.default.createSymbolicLink(atPath: directory + "/partner.txt", withDestinationPath: "a-ios.yaml")
        try Self.service("sneaky", partner: "partner.txt", onTimeout: "retry")
            .write(toFile: directory + "/z-sneaky.yaml", atomically: true, encoding: .utf8)
        let run = LintRun(root: try PolicyRoot(directory: directory))
        let cache = LintRunCache()
        let report = try run.lint(paths: [directory], cache: cache)
        let sneaky = report.findings.filter { $0.location.file.hasSuffix("z-sneaky.yaml") }
        #expect(sneaky.contains { $0.id == "RP009" && $0.message.contains("parity policy partner.txt cannot be loaded") }, "\(sneaky)")
        #expect(!sneaky.contains { $0.id == "RP115" })
    }

    @Test("a file changed during the run is loaded again, not served stale")
    func changedBytesAreReloaded() throws {
        let directory = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = LintRun(root: try PolicyRoot(directory: directory))
        let cache = LintRunCache()
        let before = run.lint(file: directory + "/a-ios.yaml", cache: cache)
        #expect(!before.contains { $0.id == "RP115" })
        try Self.service("a-android", partner: "a-ios.yaml", onTimeout: "stop")
            .write(toFile: directory + "/a-android.yaml", atomically: true, encoding: .utf8)
        let documentsBefore = cache.loads.misses.withLock { $0.documents }
        let after = run.lint(file: directory + "/a-android.yaml", cache: cache)
        #expect(cache.loads.misses.withLock { $0.documents } == documentsBefore + 1)
        // The pair is compared again: the stored comparison was made from
        // the old a-android.
        #expect(cache.comparisonsMade.withLock { $0 } == 2)
        #expect(after.contains { $0.id == "RP115" })
        #expect(after == run.lint(file: directory + "/a-android.yaml"))
    }

    @Test("the checks of one context compile an equal policy once, and a different policy anew")
    func compiledOncePerContext() throws {
        let context = LintContext(file: "p.yaml")
        let policy = try PolicyLoader().loadPolicy(
            yaml: "version: 1\nname: p\nattempts: 3\nrules:\n  - {status: 503, error: status_5xx, action: retry}\n", path: "p.yaml")
        let first = context.compiled(policy)
        #expect(context.compiled(policy) === first)
        var other = policy
        other.attempts = 2
        let second = context.compiled(other)
        #expect(second !== first)
        #expect(context.compiled(other) === second)
        #expect(LintContext(file: "p.yaml").compiled(policy) !== first)
    }
}
