import Foundation
import Testing

/// What every replay report says about its assumptions, and the warning
/// for a recording that cannot hold the Retry-After a policy honours.
@Suite("replay report: shared state and server delays")
struct ReplayReportNotesTests {
    static let tmdb = try! String(contentsOf: CLI.packageRoot.appendingPathComponent("policies/tmdb.yaml"), encoding: .utf8)
    static let deaf = """
        version: 1
        name: deaf
        attempts: 3
        retry_after:
          honor: false
        rules:
          - {status: 5xx, error: status_5xx, action: retry}
        default: {error: network_error, action: stop}
        """
    static let envoy = """
        [2026-11-17T14:03:07.120Z] "GET /v1/search?q=1 HTTP/1.1" 200 - 0 512 12 10 "-" "curl/8" "id-1" "api" "10.0.0.2:80"
        [2026-11-17T14:03:08.000Z] "GET /v1/search HTTP/1.1" 503 UF,URX 0 91 30 - "-" "curl/8" "id-2" "api" "10.0.0.2:80"
        [2026-11-17T14:03:09.000Z] "GET /v1/search HTTP/1.1" 429 - 0 24 15 - "-" "curl/8" "id-3" "api" "10.0.0.2:80"

        """
    static let nginxFormat = #"[$time_local] "$request" $status $request_time "$sent_http_retry_after""#
    static let nginx = """
        [17/Nov/2026:14:00:00 +0000] "GET /v1/search HTTP/1.1" 200 0.010 "-"
        [17/Nov/2026:14:00:01 +0000] "GET /v1/search HTTP/1.1" 429 0.010 "2"
        [17/Nov/2026:14:00:02 +0000] "GET /v1/search HTTP/1.1" 503 0.010 "-"

        """
    static let combined = """
        192.0.2.77 - - [17/Nov/2026:14:00:00 +0000] "GET /v1/search HTTP/1.1" 200 512 "-" "app/2.3"
        192.0.2.76 - - [17/Nov/2026:14:00:01 +0000] "GET /v1/search HTTP/1.1" 429 512 "-" "app/2.3"

        """

    static func workspace() throws -> Workspace {
        try Workspace([
            "tmdb.yaml": tmdb, "deaf.yaml": deaf, "envoy.log": envoy, "custom.log": nginx, "combined.log": combined,
            "traffic.jsonl": ReplayCommandTests.jsonl(count: 20),
        ])
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("every report form says that one budget, breaker and cooldown are shared by every client")
    func sharedState() throws {
        let workspace = try Self.workspace()
        let human = try workspace.run(["replay", "--policy", "tmdb.yaml", "traffic.jsonl"])
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.contains("\nassumes one retry budget, circuit breaker and cooldown shared by every client of the recording"), "\(human)")
        let markdown = try workspace.run(["replay", "--policy", "tmdb.yaml", "traffic.jsonl", "--report", "markdown"])
        #expect(markdown.stdout.contains("\nAssumes one retry budget, circuit breaker and cooldown shared by every client"), "\(markdown)")
        let json = try Self.json(try workspace.run(["replay", "--policy", "tmdb.yaml", "traffic.jsonl", "--report", "json"]).stdout)
        let assumptions = try #require(json["assumptions"] as? [String])
        #expect(assumptions.count == 1 && assumptions[0].hasPrefix("assumes one retry budget, circuit breaker and cooldown shared"))
        // JSONL carries headers: no warning, in any form.
        #expect(!human.stdout.contains("warning:"), "\(human)")
        #expect((json["warnings"] as? [Any])?.isEmpty == true)
    }

    @Test("a recording whose format has no Retry-After field is warned about when a policy honours it", arguments: [
        ("envoy.log", [String](), "is an Envoy access log in the default format, which has no response header field"),
        ("combined.log", [], "is an nginx access log whose log_format logs no $sent_http_ or $upstream_http_ header the policy reads"),
    ])
    func missingRetryAfter(file: String, options: [String], expected: String) throws {
        let workspace = try Self.workspace()
        let human = try workspace.run(["replay", "--policy", "tmdb.yaml", file] + options)
        #expect(human.status == 0, "\(human)")
        #expect(human.stdout.contains("\nwarning: \(file) \(expected), but tmdb honours Retry-After: every recorded response replays without a server delay"), "\(human)")
        let markdown = try workspace.run(["replay", "--policy", "tmdb.yaml", file, "--report", "markdown"] + options)
        #expect(markdown.stdout.contains("> :warning: \(file) "), "\(markdown)")
        let json = try Self.json(try workspace.run(["replay", "--policy", "tmdb.yaml", file, "--report", "json"] + options).stdout)
        let warnings = try #require(json["warnings"] as? [String])
        #expect(warnings.count == 1 && warnings[0].hasPrefix("\(file) \(expected)"), "\(warnings)")
        // A policy that ignores server delays loses nothing: no warning.
        let deaf = try workspace.run(["replay", "--policy", "deaf.yaml", file] + options)
        #expect(deaf.status == 0, "\(deaf)")
        #expect(!deaf.stdout.contains("warning:"), "\(deaf)")
        // The baseline counts too.
        let baseline = try workspace.run(["replay", "--policy", "deaf.yaml", "--baseline", "tmdb.yaml", file] + options)
        #expect(baseline.stdout.contains("but tmdb honours Retry-After"), "\(baseline)")
    }

    @Test("an nginx log_format that logs $sent_http_retry_after carries the delay: no warning")
    func nginxWithHeader() throws {
        let workspace = try Self.workspace()
        let result = try workspace.run(["replay", "--policy", "tmdb.yaml", "custom.log", "--nginx-log-format", Self.nginxFormat, "--report", "json"])
        #expect(result.status == 0, "\(result)")
        let json = try Self.json(result.stdout)
        #expect((json["warnings"] as? [Any])?.isEmpty == true, "\(result)")
    }
}
