import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import Testing

/// A clock that counts how often it is read, and whose sleeps end at once.
final class CountingClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = LockedValue((now: Instant(offset: .zero), reads: 0))
    var now: Instant { state.withLock { $0.reads += 1; return $0.now } }
    var reads: Int { state.withLock { $0.reads } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        state.withLock { $0.now = max($0.now, deadline) }
    }

    /// Moves time on without a read, as an attempt taking time does.
    func pass(_ duration: Duration) { state.withLock { $0.now = $0.now.advanced(by: duration) } }
}

/// `run`: attempts in the caller's task and isolation, typed errors, and
/// the hooks.
@Suite struct ExecutorInCallerTaskTests {
    enum APIError: Error, Equatable { case busy, gone }

    static func executor(_ policy: Policy, clock: CountingClock = CountingClock()) -> RetryExecutor<CountingClock> {
        RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, wallClockNow: Timestamp(secondsSince1970: 0))
    }

    @Test func aFirstTrySuccessReadsNoClockUnlessThePolicyNeedsTime() async throws {
        // Making an executor reads its clock once, to anchor it to
        // wall-clock time.
        let clock = CountingClock()
        let executor = Self.executor(TestPolicies.tmdb(), clock: clock)
        let made = clock.reads
        #expect(try await executor.run { _ in 42 } == 42)
        #expect(try await executor.runConcurrently { _ in 42 } == 42)
        #expect(clock.reads == made)

        var withCooldown = TestPolicies.tmdb()
        withCooldown.retryAfter.cooldown = .wait
        let cooling = CountingClock()
        let coolingExecutor = Self.executor(withCooldown, clock: cooling)
        let coolingMade = cooling.reads
        _ = try await coolingExecutor.run { _ in 42 }
        #expect(cooling.reads == coolingMade + 1)

        let timed = CountingClock()
        let timedExecutor = Self.executor(TestPolicies.tmdb(total: .seconds(10)), clock: timed)
        let timedMade = timed.reads
        _ = try await timedExecutor.runConcurrently { _ in 42 }
        #expect(timed.reads > timedMade)
    }

    @Test func typedErrorsReachClassifyAndTheFailure() async throws {
        let clock = CountingClock()
        let calls = LockedValue(0)
        let failure = await #expect(throws: RetryFailure.self) {
            try await Self.executor(TestPolicies.tmdb(jitter: .none), clock: clock).run(
                classify: { (result: Result<Int, APIError>) in
                    guard case .failure(let error) = result else { return nil }
                    return error == .busy ? .status(503) : .status(404)
                }
            ) { _ throws(APIError) -> Int in
                let call = calls.withLock { $0 += 1; return $0 }
                throw call < 3 ? .busy : .gone
            }
        }
        #expect(calls.withLock { $0 } == 3)
        #expect(failure?.underlyingError as? APIError == .gone)
        #expect(failure?.kind == .networkError)  // the tmdb policy's 4xx
        #expect(failure?.attempts.map(\.outcome) == [.status(503), .status(503), .status(404)])
    }

    @MainActor @Test func theOperationAndTheHooksRunInTheCallersIsolation() async throws {
        final class Log { var entries: [String] = [] }  // not Sendable
        let log = Log()
        let value = try await Self.executor(TestPolicies.tmdb(jitter: .none)).run(
            classify: { (result: Result<Int, any Error>) in
                MainActor.assertIsolated()
                log.entries.append("classify")
                if case .success(let value) = result, value < 2 { return .status(503) }
                return nil
            },
            override: { attempt in
                MainActor.assertIsolated()
                log.entries.append("override \(attempt.number)")
                return .asPolicySays
            }
        ) { context in
            MainActor.assertIsolated()
            log.entries.append("attempt \(context.attempt)")
            return context.attempt
        }
        #expect(value == 2)
        #expect(log.entries == ["attempt 1", "classify", "override 1", "attempt 2", "classify"])
    }

    @Test func anOverrideStopsWhatThePolicyWouldRetry() async throws {
        let seen = LockedValue<[Int]>([])
        let failure = await #expect(throws: RetryFailure.self) {
            try await Self.executor(TestPolicies.tmdb()).run(
                override: { (attempt: FailedAttempt<APIError>) in
                    seen.withLock { $0.append(attempt.number) }
                    return attempt.thrown == .gone ? .stop : .asPolicySays
                }
            ) { context throws(APIError) -> Int in throw context.attempt == 1 ? .busy : .gone }
        }
        // .busy is an unknown transport failure to the tmdb policy: it
        // stops by the default, so the override saw one attempt.
        #expect(seen.withLock { $0 } == [1])
        #expect(failure?.reason == .notRetryable)
    }

    @Test func theTimeLimitReachesTheOperation() async throws {
        let limits = LockedValue<[Duration?]>([])
        _ = try? await Self.executor(TestPolicies.appClient(perAttempt: .seconds(2))).run { context throws(APIError) -> Int in
            limits.withLock { $0.append(context.timeLimit) }
            throw .busy
        }
        #expect(limits.withLock { $0 }.allSatisfy { $0 == .seconds(2) })
    }

    @Test func returningLastResponseAlsoServesRunConcurrently() async throws {
        struct Response: RetryableResponse {
            var statusCode: Int
            func headerValue(named name: String) -> String? { nil }
        }
        let response = try await Self.executor(TestPolicies.tmdb()).runConcurrently(returningLastResponse: true) { _ in
            Response(statusCode: 503)
        }
        #expect(response.statusCode == 503)
        let failure = await #expect(throws: RetryFailure.self) {
            try await Self.executor(TestPolicies.tmdb()).runConcurrently { _ in Response(statusCode: 503) }
        }
        #expect((failure?.lastResponse as? Response)?.statusCode == 503)
    }
}
