import Benchmark
import FleetWorkloads
import RetryPolicyCore
import RetryPolicyPostgres
import Synchronization

/// The shared state's costs beyond `fleet.first-try-success` and
/// `fleet.retry`: PostgreSQL store (`.engine`) against the in-memory store
/// (`.baseline`) in the same run where there is a pair, and how long state
/// takes to travel between two stores on two connections (two processes,
/// as far as the database can tell).
///
/// - `fleet.decide-success`: 1,000 × admit + `decide(success)`.
/// - `fleet.paid-retry`: one `await decidePaying(503)` that pays through the
///   shared budget (a round trip, batched with any others in flight).
/// - `fleet.closed-breaker`: 1,000 × admit + record(success) on a closed
///   breaker; must send no statement.
/// - `fleet.round-trips-5pct`: 1,000 requests over about a second, 5 %
///   retried once then succeeding; custom metrics count the statements.
/// - `fleet.cooldown-propagation`: one store answers `429, Retry-After:
///   30`; the wall clock is the time until the other store's admission
///   gate shows it.
/// - `fleet.breaker-propagation`: one store opens a breaker, the other
///   sees it, claims the probe permit and closes it; custom metrics time
///   each step.
func registerSharedStateBenchmarks(url: String) {
    let policy = FleetWorkload.policy()
    let now = FleetWorkload.wallNow()
    let success = DecisionInput(outcome: .status(200), now: now)
    let failure = DecisionInput(outcome: .status(503), now: now)

    func setUp(stores count: Int, policy: Policy) -> @Sendable () async throws -> Void {
        {
            var stores: [PostgresRetryStateStore] = []
            var deciders: [RetryDecider] = []
            let key = "shared-\(UInt32.random(in: 0...UInt32.max))"
            for _ in 0..<count {
                let store = PostgresRetryStateStore(configuration: try PostgresStateConfiguration(url: url))
                try await store.start(createSchema: true)
                stores.append(store)
                deciders.append(await store.decider(for: policy, key: key))
            }
            Fixture.current.withLock { $0 = Fixture(stores: stores, deciders: deciders) }
        }
    }
    let tearDown: @Sendable () async throws -> Void = {
        for store in Fixture.current.withLock({ $0?.stores ?? [] }) { await store.shutdown() }
    }

    Benchmark("fleet.decide-success.engine", closure: { benchmark in
        let (store, decider) = Fixture.first()
        let before = store.statistics
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                blackHole(decider.admit(now: now))
                blackHole(decideOnLocalView(decider, success))
            }
        }
        precondition(store.statistics.sharedWithdrawals == before.sharedWithdrawals, "successes withdrew from the budget")
    }, setup: setUp(stores: 1, policy: policy), teardown: tearDown)
    let inMemory = RetryDecider(policy: policy, store: InMemoryRetryStateStore(), key: "fleet")
    Benchmark("fleet.decide-success.baseline") { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                blackHole(inMemory.admit(now: now))
                blackHole(decideOnLocalView(inMemory, success))
            }
        }
    }

    Benchmark("fleet.paid-retry.engine", closure: { benchmark in
        let (store, decider) = Fixture.first()
        let before = store.statistics
        for _ in benchmark.scaledIterations {
            blackHole(decider.admit(now: now))
            let decision = await decider.decidePaying(failure)
            precondition(decision.isRetry, "the shared budget refused a retry: \(decision.action)")
        }
        let after = store.statistics
        precondition(after.fallbacks == before.fallbacks, "the store fell back to local state")
    }, setup: setUp(stores: 1, policy: policy), teardown: tearDown)
    Benchmark("fleet.paid-retry.baseline") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(inMemory.admit(now: now))
            let decision = await inMemory.decidePaying(failure)
            precondition(decision.isRetry, "the in-memory budget refused a retry: \(decision.action)")
        }
    }

    let breaker = breakerPolicy()
    Benchmark("fleet.closed-breaker.engine", closure: { benchmark in
        let (store, decider) = Fixture.first()
        guard let shared = decider.breaker else { fatalError("the policy has no breaker") }
        let before = store.statistics.roundTrips
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 { admitAndSucceed(shared, at: now) }
        }
        precondition(store.statistics.roundTrips == before, "a closed breaker sent statements")
    }, setup: setUp(stores: 1, policy: breaker), teardown: tearDown)
    Benchmark("fleet.closed-breaker.baseline") { benchmark in
        guard let configuration = breaker.breaker else { fatalError("the policy has no breaker") }
        let local = CircuitBreaker(configuration: configuration)
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 { admitAndSucceed(local, at: now) }
        }
    }

    let roundTrips = BenchmarkMetric.custom("round trips", polarity: .prefersSmaller, useScalingFactor: false)
    let withdrawals = BenchmarkMetric.custom("withdrawals", polarity: .prefersSmaller, useScalingFactor: false)
    let refundWrites = BenchmarkMetric.custom("refund writes", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "fleet.round-trips-5pct",
        configuration: .init(
            metrics: [.wallClock, .throughput, roundTrips, withdrawals, refundWrites], warmupIterations: 0,
            maxDuration: .seconds(10), maxIterations: 5),
        closure: { benchmark in
            let (store, decider) = Fixture.first()
            let before = store.statistics
            // 1,000 requests over about one second: 5 % fail once and
            // succeed on the retry, the rest succeed at once.
            for request in 0..<1_000 {
                let now = FleetWorkload.wallNow()
                _ = decider.admit(now: now)
                if request % 20 == 0 {
                    _ = await decider.decidePaying(DecisionInput(outcome: .status(503), now: now))
                    _ = await decider.decidePaying(DecisionInput(outcome: .status(200), attempt: 2, now: now, lastRetryCost: 5))
                } else {
                    _ = decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get)
                }
                if request % 10 == 9 { try? await Task.sleep(for: .milliseconds(10)) }
            }
            // Lets the last batched refund go out.
            try? await Task.sleep(for: store.configuration.refundInterval * 2)
            let after = store.statistics
            benchmark.measurement(roundTrips, after.roundTrips - before.roundTrips)
            benchmark.measurement(withdrawals, after.sharedWithdrawals - before.sharedWithdrawals)
            benchmark.measurement(refundWrites, after.refundFlushes - before.refundFlushes)
        }, setup: setUp(stores: 1, policy: FleetWorkload.policy(capacity: 100_000)), teardown: tearDown)

    let propagation = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], warmupIterations: 5, maxDuration: .seconds(5), maxIterations: 200)
    Benchmark("fleet.cooldown-propagation", configuration: propagation, closure: { benchmark in
        let (sender, receiver) = Fixture.pair()
        for _ in benchmark.scaledIterations {
            // A later deadline every round, so each one extends the last.
            let now = FleetWorkload.wallNow()
            let start = ContinuousClock.now
            _ = await sender.decidePaying(DecisionInput(outcome: .response(status: 429, headers: ["Retry-After": "30"]), now: now))
            while receiver.admit(now: now) != .wait(.seconds(30)) {
                precondition(ContinuousClock.now - start < .seconds(2), "the cooldown did not arrive within 2 s")
                await Task.yield()
            }
        }
    }, setup: setUp(stores: 2, policy: policy), teardown: tearDown)

    let opening = BenchmarkMetric.custom("opening seen (us)", polarity: .prefersSmaller, useScalingFactor: false)
    let claim = BenchmarkMetric.custom("probe claim (us)", polarity: .prefersSmaller, useScalingFactor: false)
    let closing = BenchmarkMetric.custom("closing seen (us)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "fleet.breaker-propagation",
        configuration: .init(
            metrics: [.wallClock, .throughput, opening, claim, closing], warmupIterations: 2, maxDuration: .seconds(5),
            maxIterations: 100),
        closure: { benchmark in
            let fixture = Fixture.current.withLock { $0! }
            let round = UInt32.random(in: 0...UInt32.max)
            let one = breakerPolicy(probes: 1)
            guard let a = await fixture.stores[0].decider(for: one, key: "breaker-\(round)").breaker,
                let b = await fixture.stores[1].decider(for: one, key: "breaker-\(round)").breaker
            else { fatalError("the policy has no breaker") }
            let clock = ContinuousClock()
            let t0 = FleetWorkload.wallNow()
            benchmark.startMeasurement()
            var start = clock.now
            for _ in 0..<3 {
                guard case .proceed(let ticket?) = a.admit(at: t0).0 else { break }
                _ = a.record(failure: true, ticket: ticket, at: t0)
            }
            while b.state == .closed {
                precondition(clock.now - start < .seconds(2), "the opening did not arrive within 2 s")
                await Task.yield()
            }
            benchmark.measurement(opening, microseconds(clock.now - start))
            // B claims the only probe permit (one round trip) and succeeds:
            // A closes.
            start = clock.now
            guard case .proceed(let probe?) = b.admit(at: t0 + .seconds(11)).0 else { fatalError("no probe permit") }
            benchmark.measurement(claim, microseconds(clock.now - start))
            start = clock.now
            _ = b.record(failure: false, ticket: probe, at: t0 + .seconds(11))
            while a.state != .closed {
                precondition(clock.now - start < .seconds(2), "the closing did not arrive within 2 s")
                await Task.yield()
            }
            benchmark.measurement(closing, microseconds(clock.now - start))
            benchmark.stopMeasurement()
        }, setup: setUp(stores: 2, policy: breakerPolicy()), teardown: tearDown)
}

/// The stores and deciders a benchmark's set-up made (the harness runs
/// each benchmark in a process of its own, so one slot is enough).
struct Fixture: Sendable {
    var stores: [PostgresRetryStateStore]
    var deciders: [RetryDecider]

    static let current = Mutex<Fixture?>(nil)

    static func first() -> (PostgresRetryStateStore, RetryDecider) {
        guard let fixture = current.withLock({ $0 }) else { fatalError("the store was not set up") }
        return (fixture.stores[0], fixture.deciders[0])
    }

    static func pair() -> (RetryDecider, RetryDecider) {
        guard let fixture = current.withLock({ $0 }), fixture.deciders.count == 2 else {
            fatalError("the stores were not set up")
        }
        return (fixture.deciders[0], fixture.deciders[1])
    }
}

/// The synchronous decision, on the process's view of the shared state
/// (in async code `decide(_:)` resolves to the variant that pays through
/// the store).
func decideOnLocalView(_ decider: RetryDecider, _ input: DecisionInput) -> Decision {
    decider.decide(input)
}

func admitAndSucceed(_ breaker: CircuitBreaker, at now: Timestamp) {
    if case .proceed(let ticket?) = breaker.admit(at: now).0 {
        blackHole(breaker.record(failure: false, ticket: ticket, at: now))
    }
}

/// The fleet policy with a breaker that opens after three failures in a
/// row, for a 10 s break that doubles with each reopening.
func breakerPolicy(probes: Int = 2) -> Policy {
    var policy = FleetWorkload.policy(capacity: 1_000)
    policy.breaker = CircuitBreakerConfiguration(
        consecutiveFailures: 3, breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300),
        halfOpenProbes: probes)
    return policy
}

func microseconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
}
