import Foundation
import Testing

/// `table`, `diff` and `simulate` show gRPC rules and gRPC outcomes.
@Suite("gRPC rules in table, diff and simulate", .serialized)
struct GRPCCommandTests {
    static let channel = """
        version: 1
        name: channel
        attempts: 3
        backoff: {initial: 100ms, max: 1s, jitter: none}
        retry_after: {cap: 10s, above_cap: stop}
        rules:
          - {grpc: [UNAVAILABLE, RESOURCE_EXHAUSTED], error: status_5xx, action: retry}
          - {grpc: NOT_FOUND, error: not_found, action: stop}
        default: {error: internal_error, action: stop}

        """

    @Test("table lists the gRPC statuses of a policy with grpc rules, grouped by decision")
    func table() throws {
        let workspace = try Workspace(["channel.yaml": Self.channel])
        let result = try workspace.run(["table", "channel.yaml"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("| gRPC OK | Success | N/A | A gRPC call ended with OK |"), "\(result)")
        #expect(lines.contains("| gRPC RESOURCE_EXHAUSTED, UNAVAILABLE | `status_5xx` | Yes (up to 3 attempts) | A gRPC call ended with one of these statuses; backoff 100ms-1s, none jitter; respect grpc-retry-pushback-ms (cap 10s) |"), "\(result)")
        #expect(lines.contains("| gRPC NOT_FOUND | `not_found` | No | A gRPC call ended with NOT_FOUND |"), "\(result)")
        let json = try workspace.run(["table", "channel.yaml", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(document["rows"] as? [[String: Any]])
        let retried = try #require(rows.first { ($0["grpc"] as? [String]) == ["RESOURCE_EXHAUSTED", "UNAVAILABLE"] })
        #expect(retried["retry"] as? Bool == true)
    }

    @Test("diff names the gRPC statuses two policies decide differently")
    func diff() throws {
        let other = Self.channel.replacingOccurrences(of: "[UNAVAILABLE, RESOURCE_EXHAUSTED]", with: "[UNAVAILABLE]")
        let workspace = try Workspace(["a.yaml": Self.channel, "b.yaml": other])
        let result = try workspace.run(["diff", "a.yaml", "b.yaml"])
        #expect(result.stdout.contains("(statuses 100-599, 17 gRPC statuses and 10 transport classes x attempts 1-3 x 9 methods)"), "\(result)")
        #expect(result.stdout.contains("  gRPC RESOURCE_EXHAUSTED, attempt 3:\n    a.yaml: stop: status_5xx (attempts_exhausted)\n    b.yaml: stop: internal_error (not_retryable)\n"), "\(result)")
        #expect(!result.stdout.contains("gRPC UNAVAILABLE"), "\(result)")
    }

    @Test("simulate reads grpc:NAME with metadata: pushback is waited, a negative one stops")
    func simulate() throws {
        let workspace = try Workspace(["channel.yaml": Self.channel])
        let result = try workspace.run(
            ["simulate", "channel.yaml", "--responses", "grpc:UNAVAILABLE; grpc-retry-pushback-ms: 250,grpc:RESOURCE_EXHAUSTED; grpc-retry-pushback-ms: -1", "--seed", "1"])
        #expect(result.status == 0 || result.status == 1, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("grpc:UNAVAILABLE; grpc-retry-pushback-ms: 250") && $0.contains("retry in 250ms (server-directed) [status_5xx]") }, "\(result)")
        #expect(lines.contains { $0.contains("grpc:RESOURCE_EXHAUSTED; grpc-retry-pushback-ms: -1") && $0.contains("stop: status_5xx (server_pushback)") }, "\(result)")
        let misspelt = try workspace.run(["simulate", "channel.yaml", "--responses", "grpc:UNAVAILBLE"])
        #expect(misspelt.status == 2)
        #expect(misspelt.stderr.contains("'grpc:UNAVAILBLE' is not a response: expected a gRPC status name after 'grpc:' (UNAVAILABLE, RESOURCE_EXHAUSTED, ...); did you mean grpc:UNAVAILABLE?"), "\(misspelt)")
    }
}
