#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import Foundation
import PostgresTestServer
import Testing

/// `retry-policy request --state URL` with a password in the URL: whatever
/// goes wrong, the real binary's standard output and error never hold the
/// password.
@Suite("retry-policy request --state: the password never printed", .serialized)
struct StateURLErrorTests {
    static let policy = """
        version: 1
        name: secrets
        attempts: 1
        backoff: {initial: 10ms, max: 10ms, multiplier: 1, jitter: none}
        rules:
          - {status: 5xx, error: status_5xx, action: retry}

        """

    @Test("Refused URLs exit 2 with the reason, the URL shown without the password")
    func refusedURLs() throws {
        let command = RequestCommandTests()
        let policy = try command.policyFile(Self.policy)
        let cases: [(url: String, message: String)] = [
            ("postgres://fleet:s3cr3tPW@127.0.0.1:6543/db?application_name=worker", "unknown parameter 'application_name'"),
            ("postgres://fleet:s3cr3t/PW@127.0.0.1:6543/db?application_name=worker", "invalid state URL 'postgres://fleet@127.0.0.1:6543/db?application_name=worker'"),
            ("postgres://fleet:s3cr3t?PW@127.0.0.1/db?sslmode=allow", "sslmode must be one of"),
            ("postgres://fleet:s3cr3t#PW@127.0.0.1/db?fail=sometimes", "fail must be open or closed"),
            ("postgres://fleet:s3cr3t@PW@127.0.0.1:99999/db", "port 99999 is out of range"),
            ("postgres://fleet:s3cr3t%40PW@a.internal,b.internal/db", "several hosts are not supported"),
            ("postgres://fleet@127.0.0.1/db?password=s3cr3tPW&application_name=worker", "invalid state URL 'postgres://fleet@127.0.0.1/db?application_name=worker'"),
            ("mysql://fleet:s3cr3tPW@127.0.0.1/db", "the scheme must be postgres:// or postgresql://"),
            ("fleet:s3cr3tPW@127.0.0.1/db", "not a URL"),
        ]
        for (url, message) in cases {
            let result = try command.run(["request", "http://127.0.0.1:9/", "--policy", policy, "--state", url, "--verbose"])
            #expect(result.status == 2, "\(url): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains("s3cr3t") && !result.stdout.contains("s3cr3t"), "\(url): \(result.stderr)")
        }
    }

    @Test("An argument the parser cannot place is quoted without its password")
    func unexpectedArguments() throws {
        let command = RequestCommandTests()
        let policy = try command.policyFile(Self.policy)
        let stray = try command.run(["request", "http://127.0.0.1:9/", "postgres://fleet:s3cr3tPW@db.internal/x", "--policy", policy])
        #expect(stray.status == 2, "\(stray.stderr)")
        #expect(stray.stderr.contains("Unexpected argument 'postgres://fleet@db.internal/x'"), "\(stray.stderr)")
        #expect(!stray.stderr.contains("s3cr3t") && !stray.stdout.contains("s3cr3t"), "\(stray.stderr)")
        let typo = try command.run(["request", "https://user:s3cr3tPW@api.example.com/", "--policy", policy, "--sate", "postgres://fleet:s3cr3tPW@db/x"])
        #expect(typo.status == 2, "\(typo.stderr)")
        #expect(!typo.stderr.contains("s3cr3t") && !typo.stdout.contains("s3cr3t"), "\(typo.stderr)")
    }

    @Test("A database that cannot be reached: failing closed exits 2, failing open warns and sends; neither prints the password")
    func unreachable() throws {
        let command = RequestCommandTests()
        let policy = try command.policyFile(Self.policy)
        let refused = try PostgresTestServer.refusedPort()
        let closed = try command.run([
            "request", "http://127.0.0.1:9/", "--policy", policy, "--verbose",
            "--state", "postgres://fleet:s3cr3t/PW@127.0.0.1:\(refused)/db?fail=closed&connect_timeout=2",
        ])
        #expect(closed.status == 2, "\(closed.stderr)")
        #expect(closed.stderr.contains("cannot connect to postgres://fleet@127.0.0.1:\(refused)/db"), "\(closed.stderr)")
        #expect(!closed.stderr.contains("s3cr3t") && !closed.stdout.contains("s3cr3t"), "\(closed.stderr)")
        let open = try command.run([
            "request", "http://127.0.0.1:9/", "--policy", policy, "--verbose",
            "--state", "postgres://fleet@127.0.0.1:\(refused)/db?password=s3cr3tPW&connect_timeout=2",
        ])
        // The request went out on local state: port 9 refuses, which this
        // policy does not retry (the default rule: internal_error, 15).
        #expect(open.status == 15, "\(open.stderr)")
        #expect(open.stderr.contains("attempt 1: transport failure connection_refused"), "\(open.stderr)")
        #expect(open.stderr.contains("database unreachable at start"), "\(open.stderr)")
        #expect(open.stderr.contains("postgres://fleet@127.0.0.1:\(refused)/db"), "\(open.stderr)")
        #expect(!open.stderr.contains("s3cr3t") && !open.stdout.contains("s3cr3t"), "\(open.stderr)")
    }
}
#endif
