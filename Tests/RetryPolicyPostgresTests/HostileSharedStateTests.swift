#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// Any role that can connect to the database can `NOTIFY` on the channel
/// and, with write access, change the rows: the stores take nothing from
/// them beyond what their own policies allow. Each test sends what a
/// hostile peer would, through a real PostgreSQL, and waits for the store
/// to have read it.
@Suite(
    "Shared state from a hostile peer, through a real PostgreSQL",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct HostileSharedStateTests {
    static let year: Int64 = 365 * 86_400 * 1_000_000_000

    /// Sends `payload` (an SQL text expression) on the stores' channel.
    static func notify(_ database: TestDatabase, _ payload: String) throws {
        _ = try database.query("SELECT pg_notify('\(PostgresRetryStateStore.notificationChannel)', \(payload))")
    }

    @Test("A cooldown notification of 235 years is cut to the policy's 60 s cap, and the same one again does not push it on")
    func farOffCooldown() async throws {
        let database = try TestDatabase()
        let store = try await database.store()
        let decider = await store.decider(for: fleetPolicy(), key: "far-off")
        let marker = await store.decider(for: fleetPolicy(), key: "marker")
        let before = wallNow()
        let payload = "'\(before.nanosecondsSince1970 + 235 * Self.year) 429 status_429 far-off'"
        try Self.notify(database, payload)
        #expect(await waitFor { decider.cooldown.active(at: wallNow()) != nil } != nil, "the cooldown never arrived")
        let after = wallNow()
        let (until, error) = try #require(decider.cooldown.active(at: after))
        #expect(until <= after + .seconds(60), "\(until) is past the cap from \(after)")
        #expect(until >= before + .seconds(60))
        #expect(error.kind == .status429 && error.statusCode == 429)
        // The same far-off end again (the wall clock has moved on, so limiting
        // it from now would push the cooldown on), then a marker on another
        // key: once the marker is in, the repeat was read, and changed nothing.
        try Self.notify(database, payload)
        try Self.notify(database, "'\(wallNow().nanosecondsSince1970 + 50_000_000_000) 503 status_5xx marker'")
        #expect(await waitFor { marker.cooldown.active(at: wallNow()) != nil } != nil)
        #expect(decider.cooldown.active(at: wallNow())?.until == until)
        await store.shutdown()
    }

    @Test("A forged breaker notification (opening number Int64.max, openings Int.max, a break to the end of time) changes nothing, and a real opening after it still arrives")
    func forgedBreakerNotification() async throws {
        let database = try TestDatabase()
        let store = try await database.store()
        let breaker = try #require(await store.decider(for: breakerPolicy(), key: "forged").breaker)
        let marker = await store.decider(for: fleetPolicy(), key: "marker")
        try Self.notify(database, "'breaker \(Int64.max) open \(Int64.max) \(Int.max) forged'")
        // Notifications are handled in order: once the marker's cooldown is
        // in, the forged one has been handled (its row read: there is none).
        // The marker lasts 50 s (under the policy's 60 s cap), so that a
        // loaded machine handling it late still finds it active.
        try Self.notify(database, "'\(wallNow().nanosecondsSince1970 + 50_000_000_000) 503 status_5xx marker'")
        #expect(await waitFor { marker.cooldown.active(at: wallNow()) != nil } != nil, "the marker never arrived")
        #expect(breaker.state == .closed, "a forged notification opened the breaker")
        // A real peer opens the breaker: its opening number (1) is not taken
        // for a stale one behind the forged number.
        let peer = try await database.store()
        let peerBreaker = try #require(await peer.decider(for: breakerPolicy(), key: "forged").breaker)
        let t0 = wallNow()
        peerBreaker.open(at: t0)
        #expect(await waitFor { breaker.state == .open(until: t0 + .seconds(10)) } != nil, "the real opening was ignored: \(breaker.state)")
        for store in [store, peer] { await store.shutdown() }
    }

    @Test("A breaker row with openings = Int32.max and a break to the end of time, announced by a notification, is adopted within the breaker's bounds; the next opening does not trap")
    func absurdBreaker() async throws {
        let database = try TestDatabase()
        let store = try await database.store()
        let breaker = try #require(await store.decider(for: breakerPolicy(), key: "absurd").breaker)
        _ = try database.query(
            "INSERT INTO retry_policy_breaker (key, opening, state, until_ns, openings) VALUES ('absurd', 5, 'open', \(Int64.max), \(Int32.max))")
        try Self.notify(database, "'breaker 5 open \(Int64.max) \(Int32.max) absurd'")
        #expect(await waitFor { breaker.state != .closed } != nil, "the opening never arrived")
        let adoptedAt = wallNow()
        guard case .open(let until) = breaker.state else {
            Issue.record("not open: \(breaker.state)")
            return
        }
        #expect(until <= adoptedAt + .seconds(300), "\(until) is past the 300 s max_break")
        #expect(breaker.consecutiveOpenings == CircuitBreakerConfiguration.maximumOpenings)
        // After the break a probe goes through (the row gone: decided
        // locally) and fails: the breaker opens again for max_break, no trap.
        _ = try database.query("DELETE FROM retry_policy_breaker WHERE key = 'absurd'")
        let ticket = try #require(await breaker.ticket(at: until))
        let reopened = breaker.record(failure: true, ticket: ticket, at: until)
        #expect(reopened == .opened(until: until + .seconds(300), breakDuration: .seconds(300), reason: .probeFailed))
        await store.shutdown()
    }

    @Test("Malformed notifications are counted and ignored; a valid one after them still applies")
    func malformedIgnored() async throws {
        let database = try TestDatabase()
        let store = try await database.store()
        let decider = await store.decider(for: fleetPolicy(), key: "target")
        let soon = wallNow().nanosecondsSince1970 + 30_000_000_000
        let garbage = [
            "''", "'garbage'", "'1 2'", "'x 503 status_5xx target'",
            "'99999999999999999999999 503 status_5xx target'",
            // Each of these would set a 30 s cooldown on the key if applied.
            "'\(soon) 999 status_5xx target'", "'\(soon) 503 Status_5XX target'",
            "'\(soon) 503 status' || chr(27) || '[31m target'", "'\(soon) 503 status_5xx '",
            "'breaker x open 1 1 target'", "'breaker 1 ajar 1 1 target'", "'breaker 1 open 1 -1 target'",
            "'::error::forged' || chr(10) || '##[warning]forged'", "repeat('9', 7990)",
        ]
        for payload in garbage { try Self.notify(database, payload) }
        // Long enough to still be in force when a loaded machine delivers it.
        let valid = wallNow().nanosecondsSince1970 + 50_000_000_000
        try Self.notify(database, "'\(valid) 429 status_429 target'")
        #expect(await waitFor { decider.cooldown.active(at: wallNow()) != nil } != nil, "the valid notification never arrived")
        let (until, error) = try #require(decider.cooldown.active(at: wallNow()))
        #expect(until == Timestamp(nanosecondsSince1970: valid))
        #expect(error.kind == .status429)
        #expect(store.statistics.notificationsRefused == garbage.count, "\(store.statistics)")
        await store.shutdown()
    }

    @Test("Rows written beyond the cap are cut when read, and a cooldown written under the cap replaces such a row")
    func hostileRows() async throws {
        let database = try TestDatabase()
        let writer = try await database.store()
        let writerDecider = await writer.decider(for: fleetPolicy(), key: "rows")
        let farOff = wallNow().nanosecondsSince1970 + 235 * Self.year
        _ = try database.query(
            "INSERT INTO retry_policy_cooldown (key, until_ns, kind, status) VALUES ('rows', \(farOff), 'status_429', 429)")
        _ = try database.query(
            "INSERT INTO retry_policy_breaker (key, opening, state, until_ns, openings) VALUES ('rows', 3, 'open', \(Int64.max), \(Int32.max))")
        // A store starting now reads both rows, each cut to its policy's bounds.
        let reader = try await database.store()
        let readerDecider = await reader.decider(for: breakerPolicy(), key: "rows")
        let readAt = wallNow()
        let (until, _) = try #require(readerDecider.cooldown.active(at: readAt))
        #expect(until <= readAt + .seconds(60))
        guard case .open(let breakUntil) = try #require(readerDecider.breaker).state else {
            Issue.record("the breaker row was not adopted")
            return
        }
        #expect(breakUntil <= readAt + .seconds(300))
        // The writer (registered before the row appeared, so its gate is
        // clear) records a 10 s cooldown: it replaces the 235-year row.
        let mine = wallNow() + .seconds(10)
        writerDecider.cooldown.record(until: mine, error: SDKError(kind: .status5xx, statusCode: 503))
        let replaced = await waitFor {
            (try? database.query("SELECT until_ns FROM retry_policy_cooldown WHERE key = 'rows'")) == "\(mine.nanosecondsSince1970)"
        }
        #expect(replaced != nil, "the far-off row was kept")
        for store in [writer, reader] { await store.shutdown() }
    }
}
#endif
