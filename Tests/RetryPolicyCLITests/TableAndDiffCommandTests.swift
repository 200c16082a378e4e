import Foundation
import Testing

@Suite("retry-policy table and diff", .serialized)
struct TableAndDiffCommandTests {
    static let singleAttempt = """
        version: 1
        name: ios-sdk
        platform: ios
        attempts: 1
        retry_after:
          cap: 60s
          cooldown: wait
        timeouts:
          per_attempt: 10s
          total: 10s
        rules:
          - {status: 204, error: no_fill, action: stop}
          - {status: 429, error: status_429, action: stop}
          - {status: 5xx, error: status_5xx, action: stop}
          - {transport: [timeout], error: timeout, action: stop}
        default: {error: network_error, action: stop}

        """

    @Test("markdown table in the shape of the seed's Error Taxonomy Mapping, with per-platform names")
    func markdown() throws {
        let workspace = try Workspace(["ios.yaml": Self.singleAttempt])
        let result = try workspace.run(["table", "ios.yaml", "--platform", "ios", "--platform", "android"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "| HTTP Status | SDK Error (ios) | SDK Error (android) | Retry? | Explanation |")
        #expect(lines.contains("| 204 | `SDKError.noFill` | `MediationError.NO_FILL` | No | No Content |"), "\(result)")
        #expect(lines.contains("| 300-428 | `SDKError.networkError` | `MediationError.NETWORK_ERROR` | No | Redirection / client error |"), "\(result)")
        #expect(lines.contains("| 429 | `SDKError.status_429` | `MediationError.STATUS_429` | No | Too Many Requests; respect Retry-After (cap 1m) |"), "\(result)")
        #expect(lines.contains("| 500-599 | `SDKError.status_5xx` | `MediationError.STATUS_5XX` | No | Server error; respect Retry-After (cap 1m) |"), "\(result)")
        #expect(lines.contains("| Timeout | `SDKError.timeout` | `MediationError.TIMEOUT` | No | Request exceeded timeout budget |"), "\(result)")
        #expect(lines.contains { $0.hasPrefix("| 200-203 | Success | Success | N/A |") })
    }

    @Test("without a platform the error column shows kinds")
    func kinds() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["table", "clean.yaml"])
        #expect(result.stdout.hasPrefix("| HTTP Status | SDK Error | Retry? | Explanation |\n"), "\(result)")
        #expect(result.stdout.contains("| 429 | `status_429` | Yes (up to 3 attempts) | Too Many Requests; backoff 1s-10s, full jitter; respect Retry-After (cap 1m) |"), "\(result)")
    }

    @Test("json table; a retried row says so")
    func json() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["table", "clean.yaml", "--format", "json", "--platform", "ios", "--platform", "android"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let rows = try #require(document["rows"] as? [[String: Any]])
        let row503 = try #require(rows.first { ($0["input"] as? String) == "502-599" || ($0["input"] as? String) == "500, 502-599" || ($0["input"] as? String)?.hasPrefix("502") == true })
        #expect(row503["retry"] as? Bool == true, "\(rows)")
        #expect(row503["error"] as? String == "status_5xx")
        #expect((row503["names"] as? [String: Any])?["android"] as? String == "MediationError.STATUS_5XX")
    }

    @Test("diff: identical decisions exit 0; differences are grouped into ranges and exit 1")
    func diff() throws {
        let workspace = try Workspace([
            "a.yaml": PolicyTexts.clean,
            "twin.yaml": PolicyTexts.cleanTwin,
            "b.yaml": PolicyTexts.stops429,
            "ios.yaml": Self.singleAttempt,
            "android.yaml": Self.singleAttempt.replacingOccurrences(of: "platform: ios", with: "platform: android"),
        ])
        let same = try workspace.run(["diff", "a.yaml", "twin.yaml"])
        #expect(same.status == 0, "\(same)")
        #expect(same.stdout == "a.yaml and twin.yaml decide identically on all 13770 inputs (statuses 100-599 and 10 transport classes x attempts 1-3 x 9 methods)\n")
        let parity = try workspace.run(["diff", "ios.yaml", "android.yaml"])
        #expect(parity.status == 0, "platform names differ, kinds do not: \(parity)")
        let differ = try workspace.run(["diff", "a.yaml", "b.yaml"])
        #expect(differ.status == 1)
        #expect(differ.stdout.hasPrefix("a.yaml and b.yaml differ on 27 of 13770 inputs"), "\(differ)")
        #expect(differ.stdout.contains("  status 429, attempt 1 (GET, HEAD, PUT, DELETE, OPTIONS):\n    a.yaml: retry after 0s-1s [status_429]\n    b.yaml: stop: status_429 (not_retryable)\n"), "\(differ)")
        let onlyGet = try workspace.run(["diff", "a.yaml", "b.yaml", "--method", "GET", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(onlyGet.stdout.utf8)) as? [String: Any])
        #expect(document["differing_inputs"] as? Int == 3)
        #expect(document["compared_inputs"] as? Int == 1530)
    }
}

@Suite("retry-policy --help")
struct HelpTests {
    @Test("every subcommand has help that names its purpose, and help exits 0", arguments: [
        ("lint", "Check policy files for structural and semantic problems."),
        ("test", "Run the unit tests of policies"),
        ("decide", "Show what a policy decides for one response or transport failure."),
        ("simulate", "Play a request or an outage storm through a policy on a test clock."),
        ("table", "Print the status / transport -> error -> retry table of a policy."),
        ("diff", "List every input on which two policies decide differently."),
        ("request", "Perform an HTTP request under a policy, like curl --retry with the"),
    ])
    func help(command: String, abstract: String) throws {
        let result = try CLI.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: \(abstract)"), "\(result)")
        #expect(result.stdout.contains("USAGE: retry-policy \(command)"))
        let viaHelp = try CLI.run(["help", command])
        #expect(viaHelp.stdout == result.stdout)
    }

    @Test("the root help lists every subcommand and the exit statuses")
    func root() throws {
        let result = try CLI.run(["--help"])
        #expect(result.status == 0)
        for command in ["lint", "test", "decide", "simulate", "table", "diff", "request"] {
            #expect(result.stdout.contains("  \(command) "), "\(command)")
        }
        #expect(result.stdout.contains("2 usage or I/O error"))
    }
}
