#if Postgres  // the trait; these tests need PostgresNIO
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// Ratio budgets shared by several stores through one database row.
@Suite(
    "PostgreSQL shared ratio budgets",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct SharedRatioBudgetTests {
    static func policy(_ ratio: RatioRetryBudget) -> Policy {
        var policy = fleetPolicy()
        policy.budget = .ratio(ratio)
        return policy
    }

    /// The thousandths of a retry the key's row holds in its live slots.
    static func balance(_ database: TestDatabase, key: String) throws -> String {
        try database.query("SELECT COALESCE(SUM(a), 0) FROM retry_policy_ratio, unnest(amounts) AS a WHERE key = '\(key)'")
    }

    @Test("Withdrawals from many stores and tasks never spend more than the shared reserve")
    func sharedReserve() async throws {
        let database = try TestDatabase()
        let stores = [try await database.store(), try await database.store(), try await database.store()]
        // No share of requests, 1 retry a second over 10 s: 10 retries in all.
        let policy = Self.policy(RatioRetryBudget(permille: 0, minRetriesPerSecond: 1, window: .seconds(10)))
        var deciders: [RetryDecider] = []
        for store in stores { deciders.append(await store.decider(for: policy, key: "ratio")) }
        let now = wallNow()
        let granted = Granted()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                let decider = deciders[index % deciders.count]
                group.addTask {
                    for _ in 0..<5 where await decider.decidePaying(DecisionInput(outcome: .status(503), now: now)).isRetry {
                        granted.count.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        #expect(granted.count.load(ordering: .relaxed) == 10)
        #expect(try Self.balance(database, key: "ratio") == "-10000")
        #expect(stores.map(\.statistics.fallbacks).reduce(0, +) == 0)
        for store in stores { await store.shutdown() }
    }

    @Test("One store's requests deposit for another store's retries")
    func sharedDeposits() async throws {
        let database = try TestDatabase()
        let a = try await database.store(), b = try await database.store()
        let policy = Self.policy(RatioRetryBudget(permille: 200, minRetriesPerSecond: 0, window: .seconds(60)))
        let depositing = await a.decider(for: policy, key: "deposits")
        let retrying = await b.decider(for: policy, key: "deposits")
        let now = wallNow()
        #expect(await retrying.decidePaying(DecisionInput(outcome: .status(503), now: now)).stopReason == .budgetExhausted)
        // 50 requests at 20 %: 10 retries' worth, written with the refunds.
        for _ in 0..<50 { depositing.recordRequestStart(at: now) }
        let flushed = await waitFor { (try? Self.balance(database, key: "deposits")) == "10000" }
        #expect(flushed != nil)
        var granted = 0
        for _ in 0..<15 where await retrying.decidePaying(DecisionInput(outcome: .status(503), now: now)).isRetry { granted += 1 }
        #expect(granted == 10)
        #expect(try Self.balance(database, key: "deposits") == "0")
        await a.shutdown()
        await b.shutdown()
    }
}
#endif
