#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import Logging
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// The database down when the stores start: failing open they start on
/// local state and catch up when it appears; for what never fixes itself,
/// start throws (failing closed, see `PostgresStoreTests.refused`).
@Suite(
    "PostgreSQL down when the store starts",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct StartWithoutDatabaseTests {
    @Test("Down at start, then started: the stores catch up, and the refunds, cooldowns and openings they kept reach the fleet")
    func downAtStart() async throws {
        let server = try PostgresTestServer.start()
        defer { server.stop() }
        let database = try TestDatabase(server: server)
        let empty = try TestDatabase(server: server)  // no tables yet
        // Tables and a half-spent bucket made while the server is up.
        let setup = try await database.store()
        await setup.shutdown()
        _ = try database.query("INSERT INTO retry_policy_budget (key, capacity, tokens) VALUES ('fleet', 1000, 500)")
        try server.stopServer()

        // A break long enough to outlast a slow restart: an opening kept
        // while down is written only if its break is not over.
        var policy = fleetPolicy(capacity: 1000)
        policy.breaker = CircuitBreakerConfiguration(
            consecutiveFailures: 3, breakDuration: .seconds(120), breakMultiplier: 2, maxBreak: .seconds(300), halfOpenProbes: 2)
        let a = try await database.store { $0.withdrawTimeout = .milliseconds(100) }
        let b = try await database.store { $0.withdrawTimeout = .milliseconds(100) }
        let c = try await empty.store()  // createSchema: true, for when it appears
        for store in [a, b, c] {
            #expect(!store.isConnected)
            #expect(store.statistics.fallbacks == 1, "the start on local state was not counted: \(store.statistics)")
        }
        let deciderA = await a.decider(for: policy)
        let deciderB = await b.decider(for: policy)

        // Down: a retry is paid locally, successes are kept as refunds, a
        // cooldown and a breaker opening are kept for the database.
        #expect(await deciderA.decidePaying(DecisionInput(outcome: .status(503))).isRetry)
        for _ in 0..<3 { #expect(deciderA.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get)) }
        let now = wallNow()
        _ = await deciderA.decidePaying(DecisionInput(outcome: retryAfter(429, "60"), now: now))
        #expect(deciderA.admit(now: now) == .wait(.seconds(60)))
        let breakerA = try #require(deciderA.breaker)
        let breakerB = try #require(deciderB.breaker)
        #expect(breakerA.open(at: now) == .opened(until: now + .seconds(120), breakDuration: .seconds(120), reason: .consecutiveFailures))
        #expect(deciderB.admit(now: now) == .proceed(ticket: nil), "B heard of a cooldown with no database")
        #expect(breakerB.state == .closed)

        try server.startServer()
        let clock = ContinuousClock()
        let up = clock.now
        let connected = await waitFor { a.isConnected && b.isConnected && c.isConnected }
        #expect(connected != nil, "the stores did not connect: \(a.statistics) \(b.statistics) \(c.statistics)")
        // The cooldown and the opening A kept reach B.
        let cooled = await waitFor { deciderB.admit(now: now) == .wait(.seconds(60)) }
        #expect(cooled != nil, "the kept cooldown never reached B: \(b.statistics)")
        let opened = await waitFor { breakerB.state == .open(until: now + .seconds(120)) }
        #expect(opened != nil, "the kept opening never reached B: \(breakerB.state)")
        // How long catching up took, for docs/fleet.md; bounded only by
        // patience here, where the rest of the suite competes for the machine.
        print("down at start: connected \(connected.map { "\($0)" } ?? "never"), kept cooldown and opening at B after \(clock.now - up) from the server's start")
        // The three refunds are written on top of the row's 500; the local
        // retry stays local, as during any outage.
        let refunded = await waitFor { (try? database.query("SELECT tokens FROM retry_policy_budget WHERE key = 'fleet'")) == "503" }
        #expect(refunded != nil, "tokens: \((try? database.query("SELECT tokens FROM retry_policy_budget")) ?? "?")")
        #expect(try database.query("SELECT status FROM retry_policy_cooldown WHERE key = 'fleet'") == "429")
        #expect(try database.query("SELECT state, until_ns FROM retry_policy_breaker WHERE key = 'fleet'") == "open|\((now + .seconds(120)).nanosecondsSince1970)")
        // C created the tables it was asked to once the server appeared.
        let created = await waitFor { (try? empty.query("SELECT to_regclass('retry_policy_breaker') IS NOT NULL")) == "t" }
        #expect(created != nil)
        // From now on the budget is shared: B's retry is paid by the database.
        #expect(await deciderB.decidePaying(DecisionInput(outcome: .status(503))).isRetry)
        #expect(try database.query("SELECT tokens FROM retry_policy_budget WHERE key = 'fleet'") == "498")
        for store in [a, b, c] { await store.shutdown() }
    }

    @Test("Failing open, what never fixes itself still fails start: a database or a user that does not exist, missing tables")
    func permanentErrorsFailOpenToo() async throws {
        let server = try PostgresTestServer.shared()
        let database = try TestDatabase()
        let cases: [(String, String)] = [
            ("postgres://fleet@127.0.0.1:\(server.port)/no_such_database", "does not exist"),
            ("postgres://nobody@127.0.0.1:\(server.port)/\(database.name)", "nobody"),
        ]
        for (url, message) in cases {
            let store = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: url))
            do {
                try await store.start()
                Issue.record("\(url) started")
                await store.shutdown()
            } catch {
                guard case .connectionFailed = error else {
                    Issue.record("\(url): \(error)")
                    continue
                }
                #expect(error.description.contains(message), "\(error)")
            }
        }
        let store = PostgresRetryStateStore(configuration: try database.configuration())
        await #expect(throws: PostgresStateError.schemaMissing("retry_policy_schema")) { try await store.start() }
    }
}
#endif
