#if Postgres  // the trait; these tests need PostgresNIO
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// `retry_policy_ratio` rows a role with write access could leave: arrays
/// of the wrong shape or length, slot numbers out of place or far ahead,
/// missing and out-of-range amounts. A store withdrawing against such a
/// row neither fails its query (which would fall back to its local view,
/// and with `fail=open` allow the retry) nor counts more than a store
/// could have written.
@Suite(
    "Hostile ratio budget rows, through a real PostgreSQL",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct HostileRatioRowTests {
    /// No share of requests, a reserve of 10 retries over 10 s.
    static let reserveOnly = RatioRetryBudget(permille: 0, minRetriesPerSecond: 1, window: .seconds(10))
    /// The most a slot holds: `RatioBudgetWindow`'s range.
    static let maximumAmount: Int64 = (1 << 39) - 1

    static func policy(_ ratio: RatioRetryBudget) -> Policy {
        var policy = fleetPolicy()
        policy.budget = .ratio(ratio)
        return policy
    }

    /// The live slot numbers of a 10 s window at `now`, each at its place
    /// (slot modulo 10). Every test states one moment and withdraws at it,
    /// so that a slow machine cannot move the window on in between.
    static func liveSlots(at now: Timestamp) -> [Int64] {
        let slot = now.nanosecondsSince1970 / 1_000_000_000
        return (0..<10).map { place in slot - ((slot - Int64(place)) % 10 + 10) % 10 }
    }

    static func array(_ values: [Int64]) -> String { "'{" + values.map(String.init).joined(separator: ",") + "}'" }

    /// Withdraws up to 15 retries against `key` from a fresh store; the
    /// retries granted and the store's fallbacks.
    static func withdraw(_ database: TestDatabase, key: String, at now: Timestamp) async throws -> (granted: Int, fallbacks: Int) {
        let store = try await database.store()
        let decider = await store.decider(for: policy(reserveOnly), key: key)
        var granted = 0
        for _ in 0..<15 where await decider.decidePaying(DecisionInput(outcome: .status(503), now: now)).isRetry { granted += 1 }
        let fallbacks = store.statistics.fallbacks
        await store.shutdown()
        return (granted, fallbacks)
    }

    @Test("A row that is not ten slots counts as empty: the reserve alone pays, and the row is started over")
    func malformedShapes() async throws {
        let database = try TestDatabase()
        _ = try await database.store()  // the schema
        let now = wallNow()
        let live = Self.liveSlots(at: now)
        let huge = [Int64](repeating: .max, count: 10)
        let rows: [(String, String, String)] = [
            ("short", Self.array(Array(live.prefix(3))), Self.array(Array(huge.prefix(3)))),
            ("long", Self.array(live + [live[0], live[1]]), Self.array(huge + [.max, .max])),
            ("mismatched", Self.array(live), Self.array(Array(huge.prefix(9)))),
            ("two-dimensional", "'{{\(live[0...4].map(String.init).joined(separator: ","))},{\(live[5...9].map(String.init).joined(separator: ","))}}'",
             "'{{\(huge[0...4].map(String.init).joined(separator: ","))},{\(huge[5...9].map(String.init).joined(separator: ","))}}'"),
            ("shifted", "'[0:9]=" + Self.array(live).dropFirst(), "'[0:9]=" + Self.array(huge).dropFirst()),
            ("empty", "'{}'", "'{}'"),
        ]
        for (key, slots, amounts) in rows {
            _ = try database.query("INSERT INTO retry_policy_ratio (key, slots, amounts) VALUES ('\(key)', \(slots), \(amounts))")
            let (granted, fallbacks) = try await Self.withdraw(database, key: key, at: now)
            #expect(granted == 10, "\(key)")
            #expect(fallbacks == 0, "\(key)")
            let shape = try database.query(
                "SELECT array_ndims(slots), cardinality(slots), cardinality(amounts), array_lower(amounts, 1) FROM retry_policy_ratio WHERE key = '\(key)'")
            #expect(shape == "1|10|10|1", "\(key): \(shape)")
        }
    }

    @Test("Slots far ahead, slots out of place and missing amounts count for nothing; withdrawals are still recorded")
    func hostileSlots() async throws {
        let database = try TestDatabase()
        _ = try await database.store()
        let now = wallNow()
        let live = Self.liveSlots(at: now)
        let rows: [(String, String, String, Int)] = [
            // Each slot 2^62 ahead, holding the most there is: not counted.
            ("ahead", Self.array([Int64](repeating: 1 << 62, count: 10)), Self.array([Int64](repeating: .max, count: 10)), 10),
            // The current slot in every place, one retry each: counted once.
            ("duplicated", Self.array([Int64](repeating: live.max()!, count: 10)), Self.array([Int64](repeating: 1000, count: 10)), 11),
            // NULL amounts (bigint has no NaN): 0, and the withdrawals land.
            ("missing", Self.array(live), "'{NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL}'", 10),
            ("negative-slots", Self.array([Int64](repeating: -7, count: 10)), Self.array([Int64](repeating: .max, count: 10)), 10),
        ]
        for (key, slots, amounts, expected) in rows {
            _ = try database.query("INSERT INTO retry_policy_ratio (key, slots, amounts) VALUES ('\(key)', \(slots), \(amounts))")
            let (granted, fallbacks) = try await Self.withdraw(database, key: key, at: now)
            #expect(granted == expected, "\(key)")
            #expect(fallbacks == 0, "\(key)")
        }
    }

    @Test("Amounts at the ends of bigint are cut to the window's range: no overflow, no fallback")
    func extremeAmounts() async throws {
        let database = try TestDatabase()
        _ = try await database.store()
        let now = wallNow()
        let live = Self.liveSlots(at: now)
        _ = try database.query(
            "INSERT INTO retry_policy_ratio (key, slots, amounts) VALUES ('negative', \(Self.array(live)), \(Self.array([Int64](repeating: .min, count: 10))))")
        let negative = try await Self.withdraw(database, key: "negative", at: now)
        // A debt of that size refuses every retry, by the database's answer.
        #expect(negative.granted == 0)
        #expect(negative.fallbacks == 0)

        _ = try database.query(
            "INSERT INTO retry_policy_ratio (key, slots, amounts) VALUES ('overflowing', \(Self.array(live)), \(Self.array([Int64](repeating: .max, count: 10))))")
        let overflowing = try await Self.withdraw(database, key: "overflowing", at: now)
        // Within the range a store writes, a large balance is a busy fleet's.
        #expect(overflowing.granted == 15)
        #expect(overflowing.fallbacks == 0)
        // The withdrawals are taken from the cut amount, not from Int64.max
        // (in a new second, from an expired slot's 0).
        let M = Self.maximumAmount
        let row = try database.query("SELECT slots, amounts FROM retry_policy_ratio WHERE key = 'overflowing'")
        let recorded = try database.query(
            "SELECT bool_or(a BETWEEN \(M - 15_000) AND \(M - 1000) OR a BETWEEN -15000 AND -1000), bool_or(a > \(M) AND a < \(Int64.max)) FROM retry_policy_ratio, unnest(amounts) AS a WHERE key = 'overflowing'")
        #expect(recorded == "t|f", "\(row)")

        // A deposit into a slot holding Int64.max is written, cut to range.
        let store = try await database.store()
        let decider = await store.decider(for: Self.policy(RatioRetryBudget(permille: 200, minRetriesPerSecond: 0, window: .seconds(10))), key: "deposit")
        let slot = now.nanosecondsSince1970 / 1_000_000_000
        let place = Int(slot % 10)
        var slots = Self.liveSlots(at: now)
        slots[place] = slot
        _ = try database.query(
            "INSERT INTO retry_policy_ratio (key, slots, amounts) VALUES ('deposit', \(Self.array(slots)), \(Self.array([Int64](repeating: .max, count: 10))))")
        for _ in 0..<5 { decider.recordRequestStart(at: now) }
        let written = await waitFor {
            (try? database.query("SELECT amounts[\(place + 1)] FROM retry_policy_ratio WHERE key = 'deposit'")) == "\(Self.maximumAmount + 1000)"
        }
        #expect(written != nil, "the deposit was not written")
        await store.shutdown()
    }
}
#endif
