import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import Testing

@Suite("Executor: reading the clock")
struct ExecutorClockReadingTests {
    struct Flaky: Error {}

    /// Retries every error, with nothing that depends on time.
    static func timeless(backoff: Backoff = .immediate, deadline: Duration? = nil) -> Policy {
        Policy(
            name: "timeless", attempts: 3, backoff: backoff,
            retryAfter: RetryAfterPolicy(honor: false, headers: []),
            timeouts: TimeoutBudget(total: deadline),
            idempotency: Idempotency(retryableMethods: Set(HTTPMethod.standard)),
            defaultRule: DefaultRule(error: .internalError, action: .retry))
    }

    /// The clock's readings while an executor is made and runs one request
    /// that fails twice and then succeeds.
    func failTwice(_ clock: CountingClock, policy: Policy, wallClockNow: Timestamp? = nil) async throws -> Int {
        let readsBefore = clock.reads
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, wallClockNow: wallClockNow, tracing: nil)
        var calls = 0
        let value = try await executor.run { _ throws(Flaky) -> Int in
            calls += 1
            clock.pass(.milliseconds(10))
            if calls < 3 { throw Flaky() }
            return calls
        }
        #expect(value == 3)
        return clock.reads - readsBefore
    }

    @Test("an executor whose policy needs no time never reads the clock when nothing waits, not even when it is made")
    func timelessPolicyNeverReads() async throws {
        let reads = try await failTwice(CountingClock(), policy: Self.timeless())
        #expect(reads == 0)
    }

    @Test("a wall time given when the executor is made anchors the clock then, with one reading")
    func givenWallTimeAnchorsAtOnce() async throws {
        let reads = try await failTwice(CountingClock(), policy: Self.timeless(), wallClockNow: Timestamp(secondsSince1970: 0))
        #expect(reads == 1)
    }

    @Test("an executor anchors wall-clock time when it is made only if a request may need it")
    func anchorsOnlyWhenTimeMayBeNeeded() {
        let timeless = CountingClock()
        _ = RetryExecutor(decider: RetryDecider(policy: Self.timeless()), clock: timeless, tracing: nil)
        #expect(timeless.reads == 0)

        let withDeadline = CountingClock()
        withDeadline.pass(.seconds(5))
        let before = Timestamp.systemNow()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: Self.timeless(deadline: .seconds(30))), clock: withDeadline, tracing: nil)
        let after = Timestamp.systemNow()
        #expect(withDeadline.reads == 1)
        #expect(executor.wallClock.instant.offset == .seconds(5))
        #expect(executor.wallClock.timestamp >= before && executor.wallClock.timestamp <= after)
        #expect(withDeadline.reads == 1)

        let observed = CountingClock()
        _ = RetryExecutor(decider: RetryDecider(policy: Self.timeless()), clock: observed, observer: { _ in }, tracing: nil)
        #expect(observed.reads == 1)
    }

    @Test("an observer added later anchors wall-clock time then")
    func hookAddedLaterAnchors() {
        let clock = CountingClock()
        var executor = RetryExecutor(decider: RetryDecider(policy: Self.timeless()), clock: clock, tracing: nil)
        #expect(clock.reads == 0)
        executor.observer = { _ in }
        #expect(clock.reads == 1)
        _ = executor.wallClock
        #expect(clock.reads == 1)
    }

    @Test("a wait starts from a fresh reading of the clock")
    func waitsReadTheClock() async throws {
        let clock = CountingClock()
        let reads = try await failTwice(
            clock, policy: Self.timeless(backoff: Backoff(initial: .seconds(1), max: .seconds(1), multiplier: 1, jitter: .none)))
        // Each of the 2 waits reads the clock once, to sleep from; nothing
        // else does.
        #expect(reads == 2)
        #expect(clock.now.offset == .seconds(2) + .milliseconds(30))
    }

    @Test("a total deadline has every attempt timed")
    func deadlineReadsAfterEveryAttempt() async throws {
        let reads = try await failTwice(CountingClock(), policy: Self.timeless(deadline: .seconds(30)))
        #expect(reads >= 3)
    }
}
