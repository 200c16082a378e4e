#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// A store behind PgBouncer in transaction pooling, where `LISTEN` is
/// accepted and notifications never arrive, beside a store connected
/// directly.
@Suite(
    "PostgreSQL behind PgBouncer in transaction pooling",
    .enabled(if: PgBouncerTestServer.unavailableReason == nil, "\(PgBouncerTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct PoolerTests {
    @Test("Behind the pooler the store's test NOTIFY never comes back, so it polls: cooldowns and openings still arrive")
    func pollsBehindPooler() async throws {
        let database = try TestDatabase()
        let pooler = try PgBouncerTestServer.start(in: database.server)
        defer { pooler.stop() }
        let direct = try await database.store()  // creates the tables
        var configuration = try PostgresStateConfiguration(
            url: "postgres://\(PostgresTestServer.databaseUser)@127.0.0.1:\(pooler.port)/\(database.name)")
        configuration.notificationProbeTimeout = .milliseconds(500)
        configuration.pollInterval = .milliseconds(100)
        let pooled = PostgresRetryStateStore(configuration: configuration)
        try await pooled.start()
        let policy = breakerPolicy()
        let sender = await direct.decider(for: policy, key: "pooled")
        let receiver = await pooled.decider(for: policy, key: "pooled")

        // The direct store hears itself; the pooled one does not, and says so.
        let verdicts = await waitFor {
            direct.statistics.notificationProbesPassed >= 1 && pooled.statistics.notificationProbesFailed >= 1
        }
        #expect(verdicts != nil, "direct \(direct.statistics), pooled \(pooled.statistics)\n\(pooler.log)")
        #expect(direct.statistics.notificationProbesFailed == 0)
        #expect(pooled.statistics.notificationProbesPassed == 0)

        // A cooldown and a breaker opening from the direct store reach the
        // pooled one by polling.
        let now = wallNow()
        _ = await sender.decidePaying(DecisionInput(outcome: retryAfter(429, "40"), now: now))
        let cooled = await waitFor { receiver.admit(now: now) == .wait(.seconds(40)) }
        #expect(cooled != nil, "pooled \(pooled.statistics)")
        print("behind the pooler: probe verdicts after \(verdicts.map { "\($0)" } ?? "never"), a cooldown arrived by polling after \(cooled.map { "\($0)" } ?? "never") (poll interval 100 ms)")
        let senderBreaker = try #require(sender.breaker), receiverBreaker = try #require(receiver.breaker)
        senderBreaker.open(at: now)
        let opened = await waitFor { receiverBreaker.state == .open(until: now + .seconds(10)) }
        #expect(opened != nil, "pooled \(pooled.statistics)")
        #expect(pooled.statistics.polls >= 1)
        #expect(pooled.statistics.cooldownsReceived >= 1 && pooled.statistics.breakerChangesReceived >= 1, "\(pooled.statistics)")

        // The other way: what the pooled store writes is notified to the
        // direct one (NOTIFY is sent at commit, whichever server connection
        // ran it), and its budget statements work through the pooler.
        // The 503 is retried, paid for through the pooler.
        #expect(await receiver.decidePaying(DecisionInput(outcome: retryAfter(503, "50"), now: now)).isRetry)
        let back = await waitFor { sender.admit(now: now) == .wait(.seconds(50)) }
        #expect(back != nil, "direct \(direct.statistics)")
        #expect(pooled.statistics.sharedWithdrawals == 1, "\(pooled.statistics)")
        // 1000, less the direct store's retry of the 429 and this one.
        let tokens = try database.query("SELECT tokens FROM retry_policy_budget WHERE key = 'pooled'")
        #expect(tokens == "990", "direct \(direct.statistics), pooled \(pooled.statistics)")
        #expect(pooled.statistics.fallbacks == 0, "\(pooled.statistics)")
        for store in [direct, pooled] { await store.shutdown() }
    }
}
#endif
