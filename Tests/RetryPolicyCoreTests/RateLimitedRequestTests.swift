import RetryPolicyCore
import Testing

/// The adaptive rate limiter in the request state machine: first tries
/// and retries wait with the reason `rate_limit`, a waited-for token is
/// not taken twice, and a wait past the deadline or `max_wait` fails.
@Suite struct RateLimitedRequestTests {
    static let origin = Timestamp(secondsSince1970: 1_735_689_600)

    /// A moment `milliseconds` after `origin`, for a request that started
    /// `startedAt` milliseconds after it.
    static func at(_ milliseconds: Int, startedAt: Int = 0) -> RequestTime {
        RequestTime(elapsed: .milliseconds(milliseconds - startedAt), wall: origin + .milliseconds(milliseconds))
    }

    static func policy(rateLimit: AdaptiveRateLimit? = .aws, total: Duration? = nil) -> Policy {
        var policy = Policy(
            name: "adaptive", attempts: 3,
            backoff: Backoff(initial: .zero, max: .zero, multiplier: 1, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: false),
            timeouts: TimeoutBudget(total: total),
            rules: [
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.rateLimit = rateLimit
        return policy
    }

    static func isWait(_ action: RequestStateMachine.Action, _ expected: Duration) -> Bool {
        guard case .wait(let wait, let reason) = action, reason == .rateLimit else { return false }
        return abs((wait - expected) / .microseconds(1)) < 1
    }

    static func isStart(_ action: RequestStateMachine.Action, _ number: Int) -> Bool {
        if case .startAttempt(number, _) = action { return true }
        return false
    }

    /// One request throttled at 0 s: the limiter turns on at 0.5 per second.
    static func throttled(_ decider: RetryDecider) -> RequestStateMachine {
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        #expect(isStart(machine.start(at: at(0)), 1))
        let afterThrottle = machine.attemptFinished(.status(429), at: at(0), using: &generator)
        // The backoff is zero: the retry is admitted at once and meets the limiter.
        #expect(isWait(afterThrottle, .seconds(2)), "\(afterThrottle)")
        return machine
    }

    @Test("A retry after a throttle waits for the limiter, then starts without asking again")
    func retryWaits() {
        let decider = RetryDecider(policy: Self.policy())
        var machine = Self.throttled(decider)
        #expect(decider.rateLimiter?.isEnabled == true)
        #expect(Self.isStart(machine.waitFinished(at: Self.at(2000)), 2))
    }

    @Test("First tries of other requests are paced too, in the order they asked")
    func firstTriesWait() {
        let decider = RetryDecider(policy: Self.policy())
        var first = Self.throttled(decider)
        var second = RequestStateMachine(decider: decider)
        #expect(Self.isWait(second.start(at: Self.at(100, startedAt: 100)), .milliseconds(3900)))
        var third = RequestStateMachine(decider: decider)
        #expect(Self.isWait(third.start(at: Self.at(100, startedAt: 100)), .milliseconds(5900)))
        #expect(Self.isStart(first.waitFinished(at: Self.at(2000)), 2))
        #expect(Self.isStart(second.waitFinished(at: Self.at(4000, startedAt: 100)), 1))
    }

    @Test("A wait past the total deadline fails the request and gives the token back")
    func deadline() {
        let decider = RetryDecider(policy: Self.policy(total: .seconds(3)))
        _ = Self.throttled(decider)
        var late = RequestStateMachine(decider: decider)
        // 4 s to wait, 3 s allowed.
        let action = late.start(at: Self.at(0))
        guard case .fail(let failure) = action else {
            Issue.record("expected a failure, got \(action)")
            return
        }
        #expect(failure.reason == .deadlineExceeded)
        #expect(late.rejection == .deadline)
        #expect(failure.error.kind == .status429)
        // The token went back: one token owed (the waiting retry's), not two.
        #expect(decider.rateLimiter?.snapshot.balance == -1)
        #expect(failure.error.retryAfter == nil)
    }

    @Test("Beyond max_wait the limiter refuses: budget_exhausted, with the limiter as the reason")
    func maximumWait() {
        var limit = AdaptiveRateLimit.aws
        limit.maximumWait = .seconds(3)
        let decider = RetryDecider(policy: Self.policy(rateLimit: limit))
        _ = Self.throttled(decider)
        var refused = RequestStateMachine(decider: decider)
        let action = refused.start(at: Self.at(0))
        guard case .fail(let failure) = action else {
            Issue.record("expected a failure, got \(action)")
            return
        }
        #expect(failure.reason == .budgetExhausted)
        #expect(refused.rejection == .rateLimit)
        #expect(failure.error.detail?.contains("rate limiter") == true)
    }

    @Test("Without rate_limit there is no limiter and nothing waits for one")
    func withoutRateLimit() {
        let decider = RetryDecider(policy: Self.policy(rateLimit: nil))
        #expect(decider.rateLimiter == nil)
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        #expect(Self.isStart(machine.start(at: Self.at(0)), 1))
        #expect(Self.isStart(machine.attemptFinished(.status(429), at: Self.at(0), using: &generator), 2))
    }
}
