#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import Logging
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import ServiceLifecycle
import Testing

/// The store run by a swift-service-lifecycle `ServiceGroup`.
@Suite(
    "The PostgreSQL store as a ServiceLifecycle service",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct ServiceLifecycleTests {
    @Test("Graceful shutdown of the group writes the pending refunds before run() returns")
    func gracefulShutdownFlushes() async throws {
        let database = try TestDatabase()
        // Refunds are never written on their own during the test: only the
        // shutdown can write them.
        let store = PostgresRetryStateStore(configuration: try database.configuration { $0.refundInterval = .seconds(3600) })
        try await store.createSchema()
        let decider = await store.decider(for: fleetPolicy(capacity: 20), key: "service")
        let group = ServiceGroup(services: [store], logger: Logger(label: "test.group"))
        let running = Task { try await group.run() }
        let connected = await waitFor { store.isConnected }
        #expect(connected != nil, "run() did not start the store")

        #expect(await decider.decidePaying(DecisionInput(outcome: .status(503))).isRetry)
        #expect(await decider.decidePaying(DecisionInput(outcome: .status(503))).isRetry)
        #expect(try database.query("SELECT tokens FROM retry_policy_budget WHERE key = 'service'") == "10")
        for _ in 0..<3 { #expect(decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get)) }
        #expect(store.statistics.refundFlushes == 0)
        #expect(try database.query("SELECT tokens FROM retry_policy_budget WHERE key = 'service'") == "10")

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(try database.query("SELECT tokens FROM retry_policy_budget WHERE key = 'service'") == "13")
        #expect(store.statistics.refundFlushes == 1)
        #expect(!store.isConnected)
    }

    @Test("run() after start(createSchema:) keeps the started store, and returns when shutdown() is called directly")
    func runAfterStart() async throws {
        let database = try TestDatabase()
        let store = try await database.store { $0.refundInterval = .seconds(3600) }
        let decider = await store.decider(for: fleetPolicy(capacity: 20), key: "direct")
        let running = Task { try await store.run() }
        #expect(await decider.decidePaying(DecisionInput(outcome: .status(503))).isRetry)
        #expect(decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get))
        #expect(store.statistics.reconnections == 0, "run() connected again: \(store.statistics)")
        await store.shutdown()
        try await running.value
        #expect(try database.query("SELECT tokens FROM retry_policy_budget WHERE key = 'direct'") == "16")
    }
}
#endif
