#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyPostgres
import Testing

/// A half-open breaker's probe claims its fleet-wide permit as a task the
/// executor awaits: a claim the database holds up keeps no thread of the
/// cooperative pool, so every other task runs on.
@Suite(
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct ProbeClaimWaitTests {
    struct Response: RetryableResponse {
        var statusCode: Int
        func headerValue(named name: String) -> String? { nil }
    }

    /// Holds back every probe's operation until opened.
    final class Gate: Sendable {
        private let state = LockedValue<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let passes = state.withLock { state -> Bool in
                    if state.open { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if passes { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.open = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    @Test("Claims held up by a locked row leave the pool free for an unrelated task; no more than half_open_probes probes go out across two stores")
    func heldClaimBlocksNothing() async throws {
        let database = try TestDatabase()
        // Longer than the test: a claim gives up only when the row is free.
        let stores = [
            try await database.store { $0.withdrawTimeout = .seconds(60) },
            try await database.store { $0.withdrawTimeout = .seconds(60) },
        ]
        var deciders: [RetryDecider] = []
        for store in stores { deciders.append(await store.decider(for: breakerPolicy(probes: 2), key: "held")) }
        let breakers = deciders.map { $0.breaker! }
        let t0 = wallNow()
        breakers[0].open(at: t0)
        #expect(await waitFor { breakers.allSatisfy { $0.state == .open(until: t0 + .seconds(10)) } } != nil)

        // Another connection holds the breaker row's lock, so every claim
        // waits in the database until it commits. If the test cannot go
        // on (a claim holding a pool thread would keep it from running),
        // the lock goes after 20 s from an event loop, and `released`
        // tells the unrelated task it ran only then.
        let logger = Logger(label: "test.holder")
        let holder = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(),
            configuration: .init(
                host: "127.0.0.1", port: database.server.port, username: PostgresTestServer.databaseUser, password: nil,
                database: database.name, tls: .disable),
            id: 98, logger: logger)
        try await holder.query("BEGIN", logger: logger)
        try await holder.query("SELECT probes FROM retry_policy_breaker WHERE key = 'held' FOR UPDATE", logger: logger)
        let released = AtomicInt64(0)
        @Sendable func release() -> EventLoopFuture<Void> {
            guard released.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else {
                return holder.eventLoop.makeSucceededVoidFuture()
            }
            let commit: EventLoopFuture<PostgresQueryResult> = holder.query("COMMIT", logger: logger)
            return commit.map { _ in }
        }
        let fallback = holder.eventLoop.scheduleTask(in: .seconds(20)) { _ = release() }

        // More requests than the pool has threads, each a probe after the
        // break (the executors' wall clock says t0 + 11 s).
        let claimers = max(8, 4 * ProcessInfo.processInfo.activeProcessorCount)
        let gate = Gate()
        let started = AtomicInt64(0), rejected = AtomicInt64(0)
        let requests = Task {
            await withTaskGroup(of: Int?.self) { group in
                for index in 0..<claimers {
                    let executor = RetryExecutor(
                        decider: deciders[index % 2], clock: ContinuousClock(), wallClockNow: t0 + .seconds(11), tracing: nil)
                    group.addTask {
                        do throws(RetryFailure) {
                            let response = try await executor.run { _ in
                                started.add(1, ordering: .relaxed)
                                await gate.wait()
                                return Response(statusCode: 200)
                            }
                            return response.statusCode
                        } catch {
                            #expect(error.reason == .circuitOpen)
                            rejected.add(1, ordering: .relaxed)
                            return nil
                        }
                    }
                }
                var succeeded = 0
                for await status in group where status == 200 { succeeded += 1 }
                return succeeded
            }
        }
        // Both stores' first claims wait on the lock (the rest queue behind
        // them on each store's connection).
        let waiting = await waitFor {
            (try? database.query(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")) == "2"
        }
        #expect(waiting != nil, "the claims never reached the locked row")
        let ranWhileHeld = await Task.detached { released.load(ordering: .acquiring) == 0 }.value
        #expect(ranWhileHeld, "an unrelated task ran only once the claims were answered")
        fallback.cancel()
        try await release().get()

        // Exactly half_open_probes claims were granted, across both stores.
        #expect(await waitFor { rejected.load(ordering: .relaxed) == Int64(claimers - 2) } != nil, "\(rejected.load(ordering: .relaxed)) rejected")
        #expect(started.load(ordering: .relaxed) == 2)
        #expect(try database.query("SELECT probes FROM retry_policy_breaker WHERE key = 'held'") == "2")
        #expect(stores.map(\.statistics.probePermitsGranted).reduce(0, +) == 2, "\(stores.map(\.statistics))")
        #expect(stores.map(\.statistics.fallbacks).reduce(0, +) == 0, "\(stores.map(\.statistics))")
        gate.open()
        #expect(await requests.value == 2)
        // The two probes' successes close the breaker everywhere.
        #expect(await waitFor { breakers.allSatisfy { $0.state == .closed } } != nil)
        try await holder.close()
        for store in stores { await store.shutdown() }
    }
}
#endif
