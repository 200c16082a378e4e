#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import ChildProcessSupport
import Foundation
import HTTPTestSupport
import RetryPolicyCore
import Testing

/// `retry-policy request` end to end: the real binary against the loopback
/// server.
@Suite("retry-policy request against a loopback server", .serialized)
struct RequestCommandTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `retry-policy` binary `swift test` built next to the tests.
    static let binary: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("retry-policy")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let fallback = root.appendingPathComponent(".build/debug/retry-policy")
        return FileManager.default.isExecutableFile(atPath: fallback.path) ? fallback : nil
    }()

    static let policies = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("policies").path

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let binary = try #require(Self.binary, "build the retry-policy product first")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("request-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        // The policies live in temporary files and in the repository: a root
        // spanning both.
        process.arguments = arguments + ["--root", "/"]
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        let status = process.waitForExit()
        return Run(
            status: status,
            stdout: try String(contentsOf: out, encoding: .utf8),
            stderr: try String(contentsOf: err, encoding: .utf8))
    }

    func policyFile(_ yaml: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UInt64.random(in: 0...UInt64.max)).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let shortRetries = """
        version: 1
        name: short
        attempts: 3
        backoff: {initial: 10ms, max: 10ms, multiplier: 1, jitter: none}
        retry_after: {cap: 1s}
        rules:
          - {status: 5xx, error: status_5xx, action: retry}
          - {status: 429, error: status_429, action: retry}

        """

    @Test("503 then 200: exit 0, the 200's body on stdout, the timeline on stderr with --verbose")
    func retriedSuccess() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200, body: "hello\n")])
        defer { Task { try await server.shutdown() } }
        let result = try run(["request", server.url + "/greeting", "--policy", try policyFile(Self.shortRetries), "--verbose"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "hello\n")
        #expect(server.requestCount == 2)
        #expect(result.stderr.contains("attempt 1: HTTP 503"))
        #expect(result.stderr.contains("retry after 10ms"))
        #expect(result.stderr.contains("succeeded after 2 attempts"))
    }

    @Test("a persistent 503 exits 13 (status_5xx) after the policy's attempts, with the last body on stdout")
    func serverErrorExitCode() async throws {
        let server = try await ScriptedHTTPServer.start(Array(repeating: .respond(status: 503, body: "down"), count: 3))
        defer { Task { try await server.shutdown() } }
        let result = try run(["request", server.url, "--policy", try policyFile(Self.shortRetries), "--method", "PUT", "-H", "Content-Type: text/plain", "--data", "x"])
        #expect(result.status == 13, "\(result.stderr)")
        #expect(result.stdout == "down")
        #expect(result.stderr == "error: status_5xx: HTTP 503 (attempts_exhausted after 3 attempts)\n")
        #expect(server.requestCount == 3)
    }

    @Test("seed 004 through the shipped iOS policy: 204 exits 10 (no_fill), a refused port exits 11 (network_error)")
    func shippedPolicyExitCodes() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 204)])
        defer { Task { try await server.shutdown() } }
        let noFill = try run(["request", server.url, "--policy", Self.policies + "/ios-sdk.yaml"])
        #expect(noFill.status == 10, "\(noFill.stderr)")
        #expect(server.requestCount == 1)

        let port = try await ScriptedHTTPServer.refusedPort()
        let refused = try run(["request", "http://127.0.0.1:\(port)/", "--policy", Self.policies + "/ios-sdk.yaml"])
        #expect(refused.status == 11, "\(refused.stderr)")
        #expect(refused.stderr.contains("connection_refused"))
    }

    @Test("a policy that does not load exits 1 with located diagnostics; a bad header exits 2")
    func inputErrors() async throws {
        let broken = try policyFile("version: 1\nname: x\nattemps: 3\n")
        let result = try run(["request", "http://127.0.0.1:1/", "--policy", broken])
        #expect(result.status == 1)
        #expect(result.stderr.contains(broken + ":3:1: error:"), "\(result.stderr)")

        let usage = try run(["request", "http://127.0.0.1:1/", "--policy", broken, "--header", "no-colon"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("expected a header as curl writes it, 'Name: value', found 'no-colon': no ':' after the name"), "\(usage.stderr)")
        let spaced = try run(["request", "http://127.0.0.1:1/", "--policy", broken, "-H", " Accept: text/plain"])
        #expect(spaced.status == 2 && spaced.stderr.contains("the name holds a space or tab at column 1"), "\(spaced.stderr)")
    }

    // MARK: request and simulate agree

    /// One scenario: a policy, what the server answers (one entry per
    /// attempt, in `--responses` syntax), and what both must report.
    struct Agreement: Sendable, CustomTestStringConvertible {
        var name: String
        var policy: String
        var responses: [String]
        var testDescription: String { name }

        /// The loopback server's script for `responses`.
        var script: [ServerAction] {
            responses.map { text in
                let parts = text.split(separator: ";")
                let headers = parts.dropFirst().map { field -> (String, String) in
                    let header = try! ResponseHeaders.Field.parse(field.trimmingSpaces).get()
                    return (header.name, header.value)
                }
                return .respond(status: Int(parts[0])!, headers: headers)
            }
        }
    }

    static func divPolicy(aboveCap: String, cooldown: String, cap: String = "1s", headers: String = "") -> String {
        """
        version: 1
        name: div
        attempts: 3
        backoff: {initial: 100ms, max: 100ms, multiplier: 1, jitter: none}
        retry_after: {honor: true, cap: \(cap), above_cap: \(aboveCap), cooldown: \(cooldown)\(headers)}
        rules:
          - {status: 429, error: status_429, action: retry}
          - {status: 503, error: status_5xx, action: retry}
        default: {error: internal_error, action: stop}

        """
    }

    static let agreements: [Agreement] = [
        Agreement(
            name: "429 with Retry-After 3 over a 1 s cap, ignored, cooldown wait",
            policy: divPolicy(aboveCap: "ignore", cooldown: "wait"), responses: ["429; Retry-After: 3", "200"]),
        Agreement(
            name: "the same with cooldown reject",
            policy: divPolicy(aboveCap: "ignore", cooldown: "reject"), responses: ["429; Retry-After: 3", "200"]),
        Agreement(
            name: "429 over the cap with above_cap stop",
            policy: divPolicy(aboveCap: "stop", cooldown: "wait"), responses: ["429; Retry-After: 3", "200"]),
        Agreement(
            name: "429 over a 300 ms cap, clamped, with a cooldown",
            policy: divPolicy(
                aboveCap: "clamp", cooldown: "wait", cap: "300ms",
                headers: ", headers: [{name: retry-after-ms, format: milliseconds}]"),
            responses: ["429; retry-after-ms: 3000", "200"]),
        Agreement(
            name: "503 until the attempts run out",
            policy: divPolicy(aboveCap: "stop", cooldown: "off"), responses: ["503", "503", "503"]),
    ]

    /// The end of a run: attempts, whether it succeeded, the stop reason,
    /// and the time it took.
    struct Ending: Equatable {
        var attempts: Int
        var succeeded: Bool
        var reason: String?
    }

    /// A time as the verbose timeline prints it: `0.1034s`, `250ms`, `1s`.
    static func seconds(_ text: String) -> Duration? {
        if text.hasSuffix("ms"), let value = Double(text.dropLast(2)) { return .nanoseconds(Int64(value * 1e6)) }
        if text.hasSuffix("s"), let value = Double(text.dropLast()) { return .nanoseconds(Int64(value * 1e9)) }
        return try? DurationText.parse(text).get()
    }

    @Test("retry-policy request against a real server and retry-policy simulate agree", arguments: agreements)
    func requestAgreesWithSimulate(_ scenario: Agreement) async throws {
        let policy = try policyFile(scenario.policy)

        let simulated = try run(["simulate", policy, "--responses", scenario.responses.joined(separator: ","), "--format", "json"])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(simulated.stdout.utf8)) as? [String: Any])
        let result = try #require(json["result"] as? [String: Any])
        let simulatedEnding = Ending(
            attempts: try #require(result["attempts"] as? Int), succeeded: result["action"] as? String == "success",
            reason: result["reason"] as? String)
        let simulatedElapsed = Duration.milliseconds(try #require(result["elapsed_ms"] as? Double))

        let server = try await ScriptedHTTPServer.start(scenario.script)
        defer { Task { try await server.shutdown() } }
        let requested = try run(["request", server.url + "/", "--policy", policy, "--verbose"])
        let last = try #require(
            requested.stderr.split(separator: "\n").last { $0.contains("] succeeded after ") || $0.contains("] failed after ") },
            "\(requested.stderr)")
        let elapsedText = String(last.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" })
        let elapsed = try #require(Self.seconds(elapsedText), "\(elapsedText)")
        let attempts = Int(last.split(separator: " after ")[1].prefix { $0.isNumber })!
        let reason = last.contains("] failed after ") ? String(last.split(separator: "(").last!.dropLast()) : nil
        let requestedEnding = Ending(attempts: attempts, succeeded: last.contains("] succeeded after "), reason: reason)

        #expect(requestedEnding == simulatedEnding, "request: \(requested.stderr)\nsimulate: \(simulated.stdout)")
        #expect(server.requestCount == simulatedEnding.attempts)
        // The same waits, give or take the loopback round trips and
        // scheduling.
        #expect(elapsed >= simulatedElapsed, "request took \(elapsed), simulate says \(simulatedElapsed)")
        #expect(elapsed < simulatedElapsed + .milliseconds(400), "request took \(elapsed), simulate says \(simulatedElapsed)")
    }
}
#endif
