#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import PostgresTestServer
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// The numbers in docs/performance.md ("Fleet state"). Run with
/// `RETRY_POLICY_MEASURE=1 swift test --filter SharedStateMeasurements`
/// (release build: `-c release`); skipped otherwise so the suite stays
/// short.
@Suite(
    .enabled(if: ProcessInfo.processInfo.environment["RETRY_POLICY_MEASURE"] == "1", "set RETRY_POLICY_MEASURE=1 to measure"),
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .serialized)
struct SharedStateMeasurements {
    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }

    /// Median over `rounds` of the time per iteration of `body`.
    static func perIteration(rounds: Int = 7, iterations: Int, _ body: () -> Void) -> Double {
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            for _ in 0..<iterations { body() }
            samples.append(nanoseconds(ContinuousClock.now - start) / Double(iterations))
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    @Test func decisionCost() async throws {
        let database = try TestDatabase()
        let store = try await database.store()
        let policy = fleetPolicy(capacity: 1_000_000_000)
        let local = RetryDecider(policy: policy)
        let shared = await store.decider(for: policy)
        let now = wallNow()
        let success = DecisionInput(outcome: .status(200), now: now)
        let failure = DecisionInput(outcome: .status(503), now: now)

        func firstTrySuccess(_ decider: RetryDecider) -> Double {
            Self.perIteration(iterations: 200_000) {
                _ = decider.admit(now: now)
                _ = decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get)
            }
        }
        func decidedSuccess(_ decider: RetryDecider) -> Double {
            Self.perIteration(iterations: 200_000) {
                _ = decider.admit(now: now)
                _ = decider.decide(success)
            }
        }
        func retry(_ decider: RetryDecider, iterations: Int) -> Double {
            Self.perIteration(iterations: iterations) {
                _ = decider.admit(now: now)
                _ = decider.decide(failure)
            }
        }
        let before = store.statistics.roundTrips
        let localFirst = firstTrySuccess(local), sharedFirst = firstTrySuccess(shared)
        let localDecided = decidedSuccess(local), sharedDecided = decidedSuccess(shared)
        #expect(store.statistics.roundTrips - before <= 30, "successes waited on the database")
        let localRetry = retry(local, iterations: 200_000), sharedRetry = retry(shared, iterations: 2_000)
        print("""
            MEASURE admission + first-try success: in-memory \(String(format: "%.1f", localFirst)) ns, \
            postgres \(String(format: "%.1f", sharedFirst)) ns (x\(String(format: "%.2f", sharedFirst / localFirst)))
            MEASURE admission + decide(success): in-memory \(String(format: "%.1f", localDecided)) ns, \
            postgres \(String(format: "%.1f", sharedDecided)) ns (x\(String(format: "%.2f", sharedDecided / localDecided)))
            MEASURE admission + retry decision: in-memory \(String(format: "%.1f", localRetry)) ns, \
            postgres \(String(format: "%.0f", sharedRetry)) ns (x\(String(format: "%.0f", sharedRetry / localRetry)))
            """)
        await store.shutdown()
    }

    @Test func roundTripsAtFivePercentRetries() async throws {
        let database = try TestDatabase()
        let store = try await database.store()
        let decider = await store.decider(for: fleetPolicy(capacity: 100_000))
        try await Task.sleep(for: .milliseconds(150))
        let before = store.statistics
        // 1,000 requests over about one second: 5 % fail once and succeed
        // on the retry, the rest succeed at once.
        for request in 0..<1_000 {
            let now = wallNow()
            _ = decider.admit(now: now)
            if request % 20 == 0 {
                _ = await decider.decide(DecisionInput(outcome: .status(503), now: now))
                _ = await decider.decide(DecisionInput(outcome: .status(200), attempt: 2, now: now, lastRetryCost: 5))
            } else {
                _ = decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get)
            }
            if request % 10 == 9 { try await Task.sleep(for: .milliseconds(10)) }
        }
        try await Task.sleep(for: .milliseconds(250))
        let after = store.statistics
        print("""
            MEASURE round trips per 1,000 requests at 5 % retries: \(after.roundTrips - before.roundTrips) \
            (\(after.sharedWithdrawals - before.sharedWithdrawals) withdrawals, \
            \(after.refundFlushes - before.refundFlushes) refund writes)
            """)
        await store.shutdown()
    }

    @Test func cooldownPropagation() async throws {
        let database = try TestDatabase()
        let sender = try await database.store(), receiver = try await database.store()
        let a = await sender.decider(for: fleetPolicy())
        let b = await receiver.decider(for: fleetPolicy())
        var samples: [Double] = []
        for _ in 1...100 {
            let start = ContinuousClock.now
            // A later deadline every round, so each one extends the last.
            let now = wallNow()
            _ = await a.decide(DecisionInput(outcome: retryAfter(429, "30"), now: now))
            while true {
                if b.admit(now: now) == .wait(.seconds(30)) { break }
                if ContinuousClock.now - start > .seconds(2) { break }
                await Task.yield()
            }
            samples.append(Self.nanoseconds(ContinuousClock.now - start) / 1e6)
        }
        samples.sort()
        print("""
            MEASURE cooldown propagation between two connections (ms): median \(String(format: "%.2f", samples[samples.count / 2])), \
            p99 \(String(format: "%.2f", samples[samples.count * 99 / 100])), max \(String(format: "%.2f", samples.last!))
            """)
        await sender.shutdown()
        await receiver.shutdown()
    }

    @Test func breakerPropagation() async throws {
        let database = try TestDatabase()
        let sender = try await database.store(), receiver = try await database.store()
        var opening: [Double] = [], closing: [Double] = [], claims: [Double] = []
        for round in 1...100 {
            let key = "breaker-\(round)"
            let a = try #require(await sender.decider(for: breakerPolicy(probes: 1), key: key).breaker)
            let b = try #require(await receiver.decider(for: breakerPolicy(probes: 1), key: key).breaker)
            let t0 = wallNow()
            var start = ContinuousClock.now
            a.open(at: t0)
            while b.state == .closed, ContinuousClock.now - start < .seconds(2) { await Task.yield() }
            opening.append(Self.nanoseconds(ContinuousClock.now - start) / 1e6)
            // B claims the only probe permit (one round trip) and succeeds:
            // A closes.
            start = ContinuousClock.now
            let probe = b.ticket(at: t0 + .seconds(11))
            claims.append(Self.nanoseconds(ContinuousClock.now - start) / 1e6)
            guard let probe else { continue }
            start = ContinuousClock.now
            _ = b.record(failure: false, ticket: probe, at: t0 + .seconds(11))
            while a.state != .closed, ContinuousClock.now - start < .seconds(2) { await Task.yield() }
            closing.append(Self.nanoseconds(ContinuousClock.now - start) / 1e6)
        }
        func summary(_ samples: [Double]) -> String {
            let sorted = samples.sorted()
            return "median \(String(format: "%.2f", sorted[sorted.count / 2])), p99 \(String(format: "%.2f", sorted[sorted.count * 99 / 100])), max \(String(format: "%.2f", sorted.last!))"
        }
        print("""
            MEASURE breaker opening propagation between two connections (ms): \(summary(opening))
            MEASURE probe permit claim, one round trip (ms): \(summary(claims))
            MEASURE breaker closing propagation after the last probe (ms): \(summary(closing))
            """)
        await sender.shutdown()
        await receiver.shutdown()
    }

    @Test func closedBreakerAdmission() async throws {
        let database = try TestDatabase()
        let store = try await database.store()
        let local = CircuitBreaker(configuration: try #require(breakerPolicy().breaker))
        let shared = try #require(await store.decider(for: breakerPolicy(), key: "admission").breaker)
        let now = wallNow()
        func cost(_ breaker: CircuitBreaker) -> Double {
            Self.perIteration(iterations: 200_000) {
                if case .proceed(let ticket) = breaker.admit(at: now).0 { _ = breaker.record(failure: false, ticket: ticket, at: now) }
            }
        }
        let before = store.statistics.roundTrips
        let localCost = cost(local), sharedCost = cost(shared)
        #expect(store.statistics.roundTrips == before)
        print("""
            MEASURE closed breaker admit + record(success): in-memory \(String(format: "%.1f", localCost)) ns, \
            postgres \(String(format: "%.1f", sharedCost)) ns (x\(String(format: "%.2f", sharedCost / localCost))), \
            \(store.statistics.roundTrips - before) round trips
            """)
        await store.shutdown()
    }
}
#endif
