import Benchmark
import FleetWorkloads
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyPostgres
import Synchronization

/// A shared budget far away must slow only the retries that pay through
/// it, never the rest of the process: 64 concurrent requests answered 503,
/// 503, 200 through `RetryExecutor` with the PostgreSQL budget behind a
/// latency proxy (`fleet.slow-database-<N>ms.engine`, N the round trip)
/// against the same requests on the in-memory budget
/// (`fleet.slow-database-<N>ms.baseline`), in the same run. Beside the
/// requests a task sleeps 5 ms in a loop.
///
/// Wall clock: the 64 requests. Custom metrics: `heartbeat late (us)`,
/// how late the sleeping task woke at worst, and `round trips` /
/// `withdrawals`, statements the store sent and retries it paid for during
/// the iteration (128 withdrawals: two per request).
func registerSlowDatabaseBenchmarks(url: String) {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, SlowDatabase.lateness, SlowDatabase.roundTrips, SlowDatabase.withdrawals],
        warmupIterations: 1,
        maxDuration: .seconds(10),
        maxIterations: 20
    )
    for roundTrip in [20, 50, 100] {
        let name = "fleet.slow-database-\(roundTrip)ms"
        Benchmark("\(name).engine", configuration: configuration, closure: { benchmark in
            guard let (store, decider) = SlowDatabase.shared.withLock({ $0 }) else { fatalError("the store was not set up") }
            let before = store.statistics
            let lateness = await SlowDatabase.run(decider, benchmark: benchmark)
            let after = store.statistics
            precondition(after.fallbacks == before.fallbacks, "the store fell back to local state: \(before) -> \(after)")
            benchmark.measurement(SlowDatabase.lateness, lateness)
            benchmark.measurement(SlowDatabase.roundTrips, after.roundTrips - before.roundTrips)
            benchmark.measurement(SlowDatabase.withdrawals, after.sharedWithdrawals - before.sharedWithdrawals)
        }, setup: {
            try await SlowDatabase.setUp(url: url, roundTrip: .milliseconds(roundTrip))
        }, teardown: {
            await SlowDatabase.tearDown()
        })
        Benchmark("\(name).baseline", configuration: configuration) { benchmark in
            let lateness = await SlowDatabase.run(RetryDecider(policy: SlowDatabase.policy), benchmark: benchmark)
            benchmark.measurement(SlowDatabase.lateness, lateness)
            benchmark.measurement(SlowDatabase.roundTrips, 0)
            benchmark.measurement(SlowDatabase.withdrawals, 0)
        }
    }
}

enum SlowDatabase {
    static let lateness = BenchmarkMetric.custom("heartbeat late (us)", polarity: .prefersSmaller, useScalingFactor: false)
    static let roundTrips = BenchmarkMetric.custom("round trips", polarity: .prefersSmaller, useScalingFactor: false)
    static let withdrawals = BenchmarkMetric.custom("withdrawals", polarity: .prefersLarger, useScalingFactor: false)

    /// The store behind the proxy and its decider, made in the engine's
    /// set-up; the proxy is kept to stop it in the tear-down.
    static let shared = Mutex<(PostgresRetryStateStore, RetryDecider)?>(nil)
    static let proxy = Mutex<LatencyProxy?>(nil)

    /// 3 attempts, 1 ms between them, a budget that never runs out.
    static let policy = Policy(
        name: "slow-database",
        attempts: 3,
        backoff: Backoff(initial: .milliseconds(1), max: .milliseconds(1), multiplier: 1, jitter: .none),
        budget: RetryBudgetConfiguration(capacity: 1_000_000_000, retryCost: 5, timeoutRetryCost: 5, successRefund: 1),
        rules: [Rule(statuses: [.code(503)], error: .status5xx, action: .retry)])

    struct Response: RetryableResponse {
        var statusCode: Int
        func headerValue(named name: String) -> String? { nil }
    }

    static func setUp(url: String, roundTrip: Duration) async throws {
        var configuration = try PostgresStateConfiguration(url: url)
        // The tables, over a direct connection.
        let direct = PostgresRetryStateStore(configuration: configuration)
        try await direct.start(createSchema: true)
        await direct.shutdown()
        let proxy = try await LatencyProxy.start(to: configuration.port, delay: roundTrip / 2)
        configuration.host = "127.0.0.1"
        configuration.port = proxy.port
        // Generous: a loaded machine must not fall back to local state.
        configuration.withdrawTimeout = .seconds(5)
        let store = PostgresRetryStateStore(configuration: configuration)
        try await store.start()
        let decider = await store.decider(for: policy, key: "slow-database-\(UInt32.random(in: 0...UInt32.max))")
        Self.proxy.withLock { $0 = proxy }
        shared.withLock { $0 = (store, decider) }
    }

    static func tearDown() async {
        if let (store, _) = shared.withLock({ $0 }) { await store.shutdown() }
        if let proxy = proxy.withLock({ $0 }) { await proxy.stop() }
    }

    /// 64 concurrent requests answered 503, 503, 200 under `decider` (timed
    /// by the harness), and how late a task that sleeps 5 ms in a loop
    /// beside them woke at worst.
    static func run(_ decider: RetryDecider, benchmark: Benchmark) async -> Int {
        let executor = RetryExecutor(decider: decider, tracing: nil)
        let clock = ContinuousClock()
        let done = Atomic<Bool>(false)
        let heartbeat = Task {
            var worst = Duration.zero
            while !done.load(ordering: .relaxed) {
                let before = clock.now
                try? await Task.sleep(for: .milliseconds(5))
                worst = max(worst, clock.now - before - .milliseconds(5))
            }
            return worst
        }
        benchmark.startMeasurement()
        await withTaskGroup(of: Int.self) { group in
            for _ in 0..<64 {
                group.addTask {
                    let response = try? await executor.run { context in
                        Response(statusCode: context.attempt < 3 ? 503 : 200)
                    }
                    return response?.statusCode ?? 0
                }
            }
            for await status in group {
                precondition(status == 200, "a request ended with \(status), not 200")
            }
        }
        benchmark.stopMeasurement()
        done.store(true, ordering: .relaxed)
        return microseconds(await heartbeat.value)
    }
}
