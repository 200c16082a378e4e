import Benchmark
import FleetWorkloads
import RetryPolicyCore
import RetryPolicyPostgres
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Admission and decisions with the PostgreSQL store attached (`.engine`)
/// against the same policy on the in-memory store (`.baseline`), in the
/// same run. The server comes from `Scripts/fleet.py`, which passes its URL
/// in `RETRY_POLICY_BENCH_POSTGRES_URL`; without one nothing is measured.
///
/// - `fleet.first-try-success`: 1,000 requests that succeed at once, each
///   admitted and settled (`admit` + `settlePlainSuccess`, what the
///   executor does). Must never touch the database.
/// - `fleet.retry`: one request that fails with a 503, is granted a retry
///   by the synchronous `decide` (on the process's view of the shared
///   budget: no round trip; `fleet.paid-retry` pays through the database)
///   and succeeds on the second attempt (a refund, batched).
///
/// More in `SharedStateBenchmarks.swift` and
/// `SlowDatabaseBenchmarks.swift`.
let benchmarks: @Sendable () -> Void = {
    guard let url = getenv(FleetWorkload.urlVariable).map({ String(cString: $0) }), !url.isEmpty else {
        print("note: skipping the fleet benchmarks: \(FleetWorkload.urlVariable) is not set (Benchmarks/Scripts/fleet.py starts a PostgreSQL server and sets it)")
        return
    }

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 20,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )

    let policy = FleetWorkload.policy()
    let inMemory = RetryDecider(policy: policy, store: InMemoryRetryStateStore(), key: "fleet")
    // One key per process: the harness runs every benchmark in a process
    // of its own.
    let key = "bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let now = FleetWorkload.wallNow()
    let failure = DecisionInput(outcome: .status(503), attempt: 1, now: now)
    let successAfterRetry = DecisionInput(outcome: .status(200), attempt: 2, now: now, lastRetryCost: 5)

    func setUpStore() async throws {
        let store = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: url))
        try await store.start(createSchema: true)
        let decider = await store.decider(for: policy, key: key)
        Shared.postgres.withLock { $0 = (store, decider) }
        try checkNoRoundTripOnSuccess(store: store, decider: decider, now: now)
    }
    func tearDownStore() async throws {
        if let store = Shared.postgres.withLock({ $0?.store }) { await store.shutdown() }
    }
    func postgresDecider() -> RetryDecider {
        guard let decider = Shared.postgres.withLock({ $0?.decider }) else { fatalError("the store was not set up") }
        return decider
    }

    Benchmark("fleet.first-try-success.engine", closure: { benchmark in
        let decider = postgresDecider()
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                blackHole(decider.admit(now: now))
                blackHole(decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get))
            }
        }
    }, setup: setUpStore, teardown: tearDownStore)
    Benchmark("fleet.first-try-success.baseline") { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                blackHole(inMemory.admit(now: now))
                blackHole(inMemory.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get))
            }
        }
    }

    Benchmark("fleet.retry.engine", closure: { benchmark in
        let decider = postgresDecider()
        var generator = SplitMix64(seed: 7)
        for _ in benchmark.scaledIterations {
            blackHole(decider.admit(now: now))
            let first = decider.decide(failure, using: &generator)
            precondition(first.isRetry, "the shared budget refused a retry: \(first.action)")
            blackHole(decider.decide(successAfterRetry, using: &generator))
        }
    }, setup: setUpStore, teardown: tearDownStore)
    Benchmark("fleet.retry.baseline") { benchmark in
        var generator = SplitMix64(seed: 7)
        for _ in benchmark.scaledIterations {
            blackHole(inMemory.admit(now: now))
            let first = inMemory.decide(failure, using: &generator)
            precondition(first.isRetry, "the in-memory budget refused a retry: \(first.action)")
            blackHole(inMemory.decide(successAfterRetry, using: &generator))
        }
    }

    registerSharedStateBenchmarks(url: url)
    registerSlowDatabaseBenchmarks(url: url)
}

/// The store and decider the `.engine` benchmarks use, made in their
/// set-up (which may wait; the registration closure may not).
enum Shared {
    static let postgres = Mutex<(store: PostgresRetryStateStore, decider: RetryDecider)?>(nil)
}

/// Refuses to measure a store whose successes wait on the database: 1,000
/// first-try successes and 100 successes after a retry must send no
/// statement of their own (refund writes are batched by the store's timer,
/// at most one per key per refund interval, which is all the round-trip
/// counter may grow by meanwhile).
func checkNoRoundTripOnSuccess(store: PostgresRetryStateStore, decider: RetryDecider, now: Timestamp) throws {
    let before = store.statistics
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<1_000 { _ = decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get) }
    for _ in 0..<100 { _ = decider.decide(DecisionInput(outcome: .status(200), attempt: 2, now: now, lastRetryCost: 5)) }
    let elapsed = clock.now - start
    let after = store.statistics
    let flushes = after.refundFlushes - before.refundFlushes
    let allowedFlushes = Int(elapsed / store.configuration.refundInterval) + 1
    precondition(
        after.sharedWithdrawals == before.sharedWithdrawals && after.roundTrips - before.roundTrips == flushes
            && flushes <= allowedFlushes,
        "successes sent statements to the database: \(before) -> \(after)")
}

/// A small deterministic generator for the backoff jitter.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
