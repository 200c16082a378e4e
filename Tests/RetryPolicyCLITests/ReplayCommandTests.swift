import Foundation
import Testing

/// `retry-policy replay` as a user runs it, on JSONL written here.
@Suite("replay command")
struct ReplayCommandTests {
    static func jsonl(outage: Range<Int> = 100..<200, count: Int = 300) -> String {
        (0..<count).map { index in
            let status = outage.contains(index) ? 503 : 200
            return #"{"time": \#(1_763_388_000 + Double(index) / 10), "method": "GET", "url": "https://api.example.com/v1/items/\#(index)?key=SECRET-KEY", "status": \#(status), "duration_ms": 20, "headers": {"Authorization": "Bearer SECRET-TOKEN", "Retry-After": "1"}}"#
        }.joined(separator: "\n") + "\n"
    }

    static let single = """
        version: 1
        name: single
        attempts: 1
        rules:
          - {status: 5xx, error: status_5xx, action: retry}
        default: {error: network_error, action: stop}
        """

    @Test("a baseline side by side; --fail-if exits 1 when a threshold holds and 0 when none does")
    func failIf() throws {
        let tmdbText = try String(contentsOf: CLI.packageRoot.appendingPathComponent("policies/tmdb.yaml"), encoding: .utf8)
        let workspace = try Workspace(["traffic.jsonl": Self.jsonl(), "single.yaml": Self.single, "tmdb.yaml": tmdbText])
        let tmdb = "tmdb.yaml"
        let gated = try workspace.run([
            "replay", "--policy", tmdb, "--baseline", "single.yaml", "traffic.jsonl", "--fail-if", "amplification>1.2",
            "--fail-if", "success-rate-drop>50",
        ])
        #expect(gated.status == 1, "\(gated)")
        #expect(gated.stdout.contains("FAIL amplification>1.2"))
        #expect(gated.stdout.contains("pass success-rate-drop>50"))
        #expect(gated.stdout.contains("baseline single"))
        let clean = try workspace.run(["replay", "--policy", "single.yaml", "traffic.jsonl", "--fail-if", "amplification>1"])
        #expect(clean.status == 0, "\(clean)")
        #expect(clean.stdout.contains("amplification         1x"), "\(clean.stdout)")
        for output in [gated.stdout, gated.stderr, clean.stdout, clean.stderr] {
            #expect(!output.contains("SECRET"))
        }
    }

    @Test("malformed lines are located warnings and counted; usage errors exit 2")
    func errors() throws {
        let workspace = try Workspace([
            "traffic.jsonl": Self.jsonl(count: 3) + "{\"time\": 5}\nnot json\n", "single.yaml": Self.single, "empty.log": "",
            "unknown.txt": "hello\n",
        ])
        let warned = try workspace.run(["replay", "--policy", "single.yaml", "traffic.jsonl"])
        #expect(warned.status == 0, "\(warned)")
        #expect(warned.stderr.contains("traffic.jsonl:4:1: warning: expected an \"endpoint\" or \"url\" member"), "\(warned.stderr)")
        #expect(warned.stderr.contains("traffic.jsonl:5:1: warning: expected a JSON object"))
        #expect(warned.stdout.contains("2 lines skipped"))
        let badCondition = try workspace.run(["replay", "--policy", "single.yaml", "traffic.jsonl", "--fail-if", "amplification=2"])
        #expect(badCondition.status == 2)
        #expect(badCondition.stderr.contains("--fail-if 'amplification=2': column 1: expected METRIC>VALUE"), "\(badCondition.stderr)")
        let badFormat = try workspace.run(["replay", "--policy", "single.yaml", "traffic.jsonl", "--nginx-log-format", "$status"])
        #expect(badFormat.status == 2)
        #expect(badFormat.stderr.contains("--nginx-log-format: column 1: the format has no time"))
        let missing = try workspace.run(["replay", "--policy", "single.yaml", "nowhere.log"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nowhere.log: no such file"))
        let empty = try workspace.run(["replay", "--policy", "single.yaml", "empty.log"])
        #expect(empty.status == 2)
        #expect(empty.stderr.contains("no recorded requests could be read"))
        let unknown = try workspace.run(["replay", "--policy", "single.yaml", "unknown.txt"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown.txt:1:1: error: cannot tell the recording's format"), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("hello"))
        let none = try workspace.run(["replay", "--policy", "single.yaml"])
        #expect(none.status == 2)
    }
}
