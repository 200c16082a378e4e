import Foundation
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

    func run(_ arguments: [String]) throws -> Run {
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
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus,
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
    }
}
