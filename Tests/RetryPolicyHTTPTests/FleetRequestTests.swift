#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import ChildProcessSupport
import Foundation
import HTTPTestSupport
import PostgresTestServer
import RetryPolicyCore
import Testing

/// `retry-policy request --state`: separate OS processes sharing one budget
/// and one cooldown through a PostgreSQL started by the tests, against the
/// loopback HTTP server.
@Suite(
    "retry-policy request --state: a fleet of processes",
    .serialized,
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct FleetRequestTests {
    /// A `retry-policy` process running in the background.
    final class Running: @unchecked Sendable {
        let process = Process()
        let out: URL, err: URL
        let started = ContinuousClock.now

        init(_ arguments: [String]) throws {
            let binary = try #require(RequestCommandTests.binary, "build the retry-policy product first")
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(UInt64.random(in: 0...UInt64.max))")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            out = scratch.appendingPathComponent("out")
            err = scratch.appendingPathComponent("err")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            process.executableURL = binary
            process.arguments = arguments + ["--root", "/"]
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            try process.run()
        }

        /// Waits for the exit, at most `limit` (then kills it and fails).
        func finish(within limit: Duration = .seconds(20)) async -> (status: Int32, stderr: String, elapsed: Duration) {
            while process.isRunning && ContinuousClock.now - started < limit {
                try? await Task.sleep(for: .milliseconds(5))
            }
            if process.isRunning {
                process.terminate()
                Issue.record("retry-policy \(process.arguments ?? []) hung; killed after \(limit)")
            }
            let status = process.waitForExit()
            let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
            return (status, stderr, ContinuousClock.now - started)
        }
    }

    let database: String
    let postgres: PostgresTestServer
    let name: String

    init() throws {
        postgres = try PostgresTestServer.shared()
        name = "fleet\(UInt64.random(in: 0...UInt64.max))"
        _ = try postgres.psql("CREATE DATABASE \(name)")
        database = "postgres://\(PostgresTestServer.databaseUser)@127.0.0.1:\(postgres.port)/\(name)"
    }

    /// The answer to `query` in the test's database; empty until it can be
    /// asked (the processes create the tables).
    func answer(_ query: String) -> String {
        guard let binaries = PostgresTestServer.binaries else { return "" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binaries.directory + "/psql")
        process.arguments = ["-h", "127.0.0.1", "-p", "\(postgres.port)", "-U", PostgresTestServer.databaseUser, "-d", name, "-At", "-c", query]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        _ = process.waitForExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func policyFile(_ yaml: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-policy-\(UInt64.random(in: 0...UInt64.max)).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func budgetPolicy(backoff: String = "10ms") -> String {
        """
        version: 1
        name: fleet-budget
        attempts: 10
        backoff: {initial: \(backoff), max: \(backoff), multiplier: 1, jitter: none}
        retry_after: {cap: 10s}
        budget: {capacity: 20, retry_cost: 5, timeout_retry_cost: 10, success_refund: 1}
        rules:
          - {status: 5xx, error: status_5xx, action: retry}
          - {status: 429, error: status_429, action: stop}

        """
    }

    static func cooldownPolicy(_ mode: String) -> String {
        """
        version: 1
        name: fleet-cooldown
        attempts: 2
        backoff: {initial: 10ms, max: 10ms, multiplier: 1, jitter: none}
        retry_after: {cap: 30s, cooldown: \(mode)}
        rules:
          - {status: 5xx, error: status_5xx, action: retry}
          - {status: 429, error: status_429, action: stop}

        """
    }

    @Test("Four processes against an always-503 server spend one budget: first attempts plus capacity / cost retries")
    func sharedBudget() async throws {
        let server = try await ScriptedHTTPServer.start(Array(repeating: .respond(status: 503), count: 200))
        defer { Task { try await server.shutdown() } }
        let policy = try policyFile(Self.budgetPolicy())
        let processes = try (0..<4).map { index in
            try Running(["request", server.url + "/worker-\(index)", "--policy", policy, "--state", database, "--init-state"])
        }
        for process in processes {
            let result = await process.finish()
            #expect(result.status == 13, "\(result.stderr)")
            #expect(!result.stderr.contains("unreachable"), "\(result.stderr)")
        }
        // 4 first attempts + 20 / 5 retries, exactly as one process with
        // this budget would send for four requests.
        #expect(server.requestCount == 4 + 20 / 5, "\(server.received)")
    }

    // Retry-After is 10 s, not a shorter delay: the later processes are four
    // new OS processes that each connect to PostgreSQL, which under
    // AddressSanitizer on a busy machine has taken more than 3 s, so a
    // 3 s cooldown could end before they ask.
    @Test("A 429 with Retry-After: 10 to one process holds back processes started later: wait sends nothing until it ends, reject fails at once")
    func sharedCooldown() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 429, headers: [("Retry-After", "10")])])
        defer { Task { try await server.shutdown() } }
        let waitPolicy = try policyFile(Self.cooldownPolicy("wait"))
        let rejectPolicy = try policyFile(Self.cooldownPolicy("reject"))
        let first = try Running(["request", server.url + "/first", "--policy", waitPolicy, "--state", database, "--state-key", "tmdb-key-1", "--init-state"])
        let firstResult = await first.finish()
        #expect(firstResult.status == 12, "\(firstResult.stderr)")
        #expect(await waitFor { answer("SELECT count(*) FROM retry_policy_cooldown") == "1" } != nil, "the 429's cooldown was never shared")

        let waiters = try (0..<2).map { index in
            try Running(["request", server.url + "/wait-\(index)", "--policy", waitPolicy, "--state", database, "--state-key", "tmdb-key-1"])
        }
        let rejecters = try (0..<2).map { index in
            try Running(["request", server.url + "/reject-\(index)", "--policy", rejectPolicy, "--state", database, "--state-key", "tmdb-key-1"])
        }
        for rejecter in rejecters {
            let result = await rejecter.finish()
            #expect(result.status == 12, "\(result.stderr)")
            #expect(result.elapsed < .seconds(6), "reject took \(result.elapsed)")
        }
        // Until the cooldown ends (10 s after the 429 left the server),
        // nothing from the later processes reaches it; measured from the
        // 429's own arrival, so a slow process start cannot blur it.
        let rateLimited = try #require(server.receivedAt.first)
        for waiter in waiters {
            let result = await waiter.finish()
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(Set(server.received) == ["/first", "/wait-0", "/wait-1"])
        for (path, arrival) in zip(server.received, server.receivedAt) where path != "/first" {
            #expect(arrival - rateLimited >= .milliseconds(9_900), "\(path) arrived \(arrival - rateLimited) after the 429")
        }
    }

    @Test("A process killed with SIGKILL mid-request leaves nothing that blocks the others")
    func killed() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503)])
        defer { Task { try await server.shutdown() } }
        let slow = try policyFile(Self.budgetPolicy(backoff: "20s"))
        let victim = try Running(["request", server.url + "/victim", "--policy", slow, "--state", database, "--init-state"])
        await server.requests(atLeast: 1)
        // The victim has paid for its retry and waits out its backoff.
        #expect(await waitFor { answer("SELECT tokens FROM retry_policy_budget") == "15" } != nil)
        kill(victim.process.processIdentifier, SIGKILL)
        _ = await victim.finish()
        let next = try Running(["request", server.url + "/next", "--policy", slow, "--state", database])
        let result = await next.finish(within: .seconds(15))
        #expect(result.status == 0, "\(result.stderr)")
        // Far below the victim's 20 s backoff: nothing it left behind holds
        // the next process back.
        #expect(result.elapsed < .seconds(10))
    }

    @Test("A bad URL, a bad sslmode, a refused connection failing closed and missing tables are clear errors with status 2, never a hang")
    func stateErrors() async throws {
        let policy = try policyFile(Self.budgetPolicy())
        let refused = try PostgresTestServer.refusedPort()
        let emptyDatabase = database  // no --init-state: the tables are missing
        let cases: [(String, String)] = [
            ("mysql://fleet@127.0.0.1/db", "invalid state URL"),
            ("postgres://fleet@127.0.0.1/db?sslmode=verify", "sslmode must be one of disable, prefer, require, verify-ca, verify-full"),
            ("postgres://fleet@127.0.0.1/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem", "sslrootcert file /nonexistent/ca.pem does not exist"),
            ("postgres://fleet@127.0.0.1:\(refused)/db?fail=closed", "cannot connect"),
            (emptyDatabase, "does not exist"),
        ]
        for (url, message) in cases {
            let run = try Running(["request", "http://127.0.0.1:9/", "--policy", policy, "--state", url])
            let result = await run.finish(within: .seconds(10))
            #expect(result.status == 2, "\(url): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(url): \(result.stderr)")
            #expect(result.elapsed < .seconds(5))
        }
    }

    @Test("Failing open (the default), an unreachable database at start still sends the request on local state, and says so")
    func unreachableAtStartFailsOpen() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let policy = try policyFile(Self.budgetPolicy())
        let refused = try PostgresTestServer.refusedPort()
        let run = try Running(["request", server.url + "/open", "--policy", policy, "--state", "postgres://fleet@127.0.0.1:\(refused)/db"])
        let result = await run.finish(within: .seconds(20))
        #expect(result.status == 0, "\(result.stderr)")
        // The 503 was retried from the local budget.
        #expect(server.received == ["/open", "/open"], "\(result.stderr)")
        #expect(result.stderr.contains("database unreachable at start"), "\(result.stderr)")
        #expect(result.stderr.contains("retry budget unreachable, deciding on local state"), "\(result.stderr)")
    }
}
#endif
