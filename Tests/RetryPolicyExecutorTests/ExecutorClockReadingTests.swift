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

    func failTwice(_ clock: CountingClock, policy: Policy) async throws -> Int {
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, tracing: nil)
        let readsBefore = clock.reads
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

    @Test("a policy that needs no time and does not wait reads the clock once per request, not after each failure")
    func timelessPolicyReadsOnce() async throws {
        let reads = try await failTwice(CountingClock(), policy: Self.timeless())
        #expect(reads == 1)
    }

    @Test("a wait starts from a fresh reading of the clock")
    func waitsReadTheClock() async throws {
        let clock = CountingClock()
        let reads = try await failTwice(
            clock, policy: Self.timeless(backoff: Backoff(initial: .seconds(1), max: .seconds(1), multiplier: 1, jitter: .none)))
        // The first try's end, then before and after each of the 2 waits.
        #expect(reads == 5)
        #expect(clock.now.offset == .seconds(2) + .milliseconds(30))
    }

    @Test("a total deadline has every attempt timed")
    func deadlineReadsAfterEveryAttempt() async throws {
        let reads = try await failTwice(CountingClock(), policy: Self.timeless(deadline: .seconds(30)))
        #expect(reads >= 3)
    }
}
