import RetryPolicyCore
import Testing

/// Every transition of the request state machine, driven by hand.
@Suite struct RequestStateMachineTests {
    static let origin = Timestamp(secondsSince1970: 1_735_689_600)
    static func at(_ milliseconds: Int) -> RequestTime { RequestTime(.milliseconds(milliseconds), since: origin) }

    /// Constant 100 ms backoff; 503 retries, 401 refreshes, 429 honours Retry-After.
    static func policy(
        attempts: Int = 3, perAttempt: Duration? = nil, total: Duration? = nil,
        budget: RetryBudgetConfiguration? = nil, cooldown: RetryAfterPolicy.Cooldown = .off
    ) -> Policy {
        Policy(
            name: "machine", attempts: attempts,
            backoff: Backoff(initial: .milliseconds(100), max: .milliseconds(100), multiplier: 1, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(10), aboveCap: .clamp, cooldown: cooldown),
            timeouts: TimeoutBudget(perAttempt: perAttempt, total: total),
            budget: budget,
            rules: [
                Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
                Rule(transports: [.cancelled], error: .cancelled, action: .stop),
                Rule(statuses: [.code(404)], action: .success),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
    }

    static func expectStart(_ action: RequestStateMachine.Action, _ number: Int, limit: Duration? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        guard case .startAttempt(let started, let timeLimit) = action else {
            Issue.record("expected attempt \(number), got \(action)", sourceLocation: sourceLocation)
            return
        }
        #expect(started == number, sourceLocation: sourceLocation)
        #expect(timeLimit == limit, sourceLocation: sourceLocation)
    }

    static func failure(_ action: RequestStateMachine.Action, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> RetryFailure? {
        guard case .fail(let failure) = action else {
            Issue.record("expected a failure, got \(action)", sourceLocation: sourceLocation)
            return nil
        }
        return failure
    }

    @Test("a first-try success: one attempt, succeed, one record")
    func firstTrySuccess() {
        var machine = RequestStateMachine(decider: RetryDecider(policy: Self.policy()))
        var generator = SplitMix64(seed: 1)
        Self.expectStart(machine.start(at: Self.at(0)), 1)
        guard case .succeed = machine.attemptFinished(.status(200), at: Self.at(20), using: &generator) else {
            Issue.record("a 200 succeeds")
            return
        }
        #expect(machine.isFinished)
        #expect(machine.history.count == 1)
        #expect(machine.history[0].startedAt == .zero)
        #expect(machine.history[0].duration == .milliseconds(20))
    }

    @Test("503, 503, 200: two backoff waits measured from each attempt's end, then success; the budget is refunded")
    func retriesThenSucceeds() {
        let decider = RetryDecider(
            policy: Self.policy(budget: RetryBudgetConfiguration(capacity: 20, retryCost: 5, successRefund: 1)))
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        Self.expectStart(machine.start(at: Self.at(0)), 1)
        guard case .wait(.milliseconds(100), .backoff) = machine.attemptFinished(.status(503), at: Self.at(10), using: &generator) else {
            Issue.record("the first 503 waits the backoff")
            return
        }
        #expect(decider.budget?.available == 15)
        Self.expectStart(machine.waitFinished(at: Self.at(110)), 2)
        guard case .wait = machine.attemptFinished(.status(503), at: Self.at(120), using: &generator) else {
            Issue.record("the second 503 waits")
            return
        }
        #expect(decider.budget?.available == 10)
        Self.expectStart(machine.waitFinished(at: Self.at(220)), 3)
        guard case .succeed = machine.attemptFinished(.status(200), at: Self.at(230), using: &generator) else {
            Issue.record("the 200 succeeds")
            return
        }
        // A success after retries gives back what its last retry cost.
        #expect(decider.budget?.available == 15)
        #expect(machine.history.map(\.number) == [1, 2, 3])
        #expect(machine.history.map(\.startedAt) == [.zero, .milliseconds(110), .milliseconds(220)])
    }

    @Test("the last attempt stops with attempts_exhausted and the whole history")
    func attemptsExhausted() {
        var machine = RequestStateMachine(decider: RetryDecider(policy: Self.policy(attempts: 2)))
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.attemptFinished(.status(503), at: Self.at(0), using: &generator)
        _ = machine.waitFinished(at: Self.at(100))
        guard let failure = Self.failure(machine.attemptFinished(.status(502), at: Self.at(100), using: &generator)) else { return }
        #expect(failure.reason == .attemptsExhausted)
        #expect(failure.error == SDKError(kind: .status5xx, statusCode: 502))
        #expect(failure.attempts.count == 2)
    }

    @Test("a budget that cannot pay stops with budget_exhausted")
    func budgetExhausted() {
        let decider = RetryDecider(policy: Self.policy(budget: RetryBudgetConfiguration(capacity: 4, retryCost: 5)))
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        #expect(Self.failure(machine.attemptFinished(.status(503), at: Self.at(0), using: &generator))?.reason == .budgetExhausted)
    }

    @Test("the per-attempt timeout is the time limit, cut to what is left of the deadline")
    func attemptLimits() {
        var machine = RequestStateMachine(
            decider: RetryDecider(policy: Self.policy(perAttempt: .milliseconds(300), total: .milliseconds(500))))
        var generator = SplitMix64(seed: 1)
        Self.expectStart(machine.start(at: Self.at(0)), 1, limit: .milliseconds(300))
        guard case .wait = machine.attemptFinished(.transport(.timeout), at: Self.at(300), producedValue: false, using: &generator) else {
            Issue.record("a timeout retries")
            return
        }
        Self.expectStart(machine.waitFinished(at: Self.at(400)), 2, limit: .milliseconds(100))
        // The second timeout ends at the deadline: no retry fits.
        let last = Self.failure(machine.attemptFinished(.transport(.timeout), at: Self.at(500), producedValue: false, using: &generator))
        #expect(last?.reason == .deadlineExceeded)
        #expect(last?.attempts.last?.errorDescription == "timed out")
    }

    @Test("a wait that overran the deadline fails before the next attempt, with the last attempt's error")
    func deadlineBeforeAttempt() {
        var machine = RequestStateMachine(decider: RetryDecider(policy: Self.policy(total: .milliseconds(500))))
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.attemptFinished(.status(503), at: Self.at(300), using: &generator)
        let failure = Self.failure(machine.waitFinished(at: Self.at(600)))
        #expect(failure?.reason == .deadlineExceeded)
        #expect(failure?.error.kind == .status5xx)
        #expect(failure?.error.statusCode == 503)
        #expect(failure?.attempts.count == 1)
    }

    @Test("401: wait, refresh credentials, retry once; a second 401 stops")
    func refreshOnce() {
        var machine = RequestStateMachine(decider: RetryDecider(policy: Self.policy()))
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        guard case .wait(.milliseconds(100), .backoff) = machine.attemptFinished(.status(401), at: Self.at(0), using: &generator) else {
            Issue.record("a 401 waits first")
            return
        }
        guard case .refreshCredentials = machine.waitFinished(at: Self.at(100)) else {
            Issue.record("then refreshes")
            return
        }
        #expect(machine.credentialRefreshes == 1)
        Self.expectStart(machine.credentialRefreshFinished(at: Self.at(150)), 2)
        let failure = Self.failure(machine.attemptFinished(.status(401), at: Self.at(160), using: &generator))
        #expect(failure?.reason == .notRetryable)
        #expect(failure?.error.kind == .unauthorized)
    }

    @Test("a failed refresh ends the request with the attempt's error and the refresher's")
    func refreshFails() {
        struct Refused: Error {}
        var machine = RequestStateMachine(decider: RetryDecider(policy: Self.policy()))
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.attemptFinished(.status(401), at: Self.at(0), using: &generator)
        _ = machine.waitFinished(at: Self.at(100))
        let failure = Self.failure(machine.credentialRefreshFinished(at: Self.at(100), failure: Refused()))
        #expect(failure?.reason == .notRetryable)
        #expect(failure?.error.kind == .unauthorized)
        #expect(failure?.error.detail?.hasPrefix("credential refresh failed") == true)
        #expect(failure?.underlyingError is Refused)
    }

    @Test("a rule that calls a failure without a value a success is a policy mistake")
    func successWithoutValue() {
        var policy = Self.policy()
        policy.rules.insert(Rule(transports: [.connectionLost], action: .success), at: 0)
        var machine = RequestStateMachine(decider: RetryDecider(policy: policy))
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        let failure = Self.failure(
            machine.attemptFinished(.transport(.connectionLost), at: Self.at(5), producedValue: false, using: &generator))
        #expect(failure?.error.kind == .internalError)
        #expect(failure?.reason == .notRetryable)
        #expect(failure?.attempts.last?.decision.errorKind == .internalError)
    }

    @Test("a cooldown holds the first attempt back, or outlasts the deadline")
    func cooldownAdmission() {
        let decider = RetryDecider(policy: Self.policy(total: .seconds(3), cooldown: .wait))
        decider.cooldown.record(until: Self.origin + .seconds(2), error: SDKError(kind: .status429, statusCode: 429))
        var waiting = RequestStateMachine(decider: decider)
        guard case .wait(.seconds(2), .cooldown) = waiting.start(at: Self.at(0)) else {
            Issue.record("a cooldown wait")
            return
        }
        Self.expectStart(waiting.waitFinished(at: Self.at(2000)), 1, limit: .seconds(1))

        var late = RequestStateMachine(decider: decider)
        // Started 1.5 s before the cooldown's end with 1 s of deadline.
        var tight = Self.policy(total: .seconds(1), cooldown: .wait)
        tight.name = "tight"
        let shared = RetryDecider(policy: tight, cooldown: decider.cooldown)
        late = RequestStateMachine(decider: shared)
        let failure = Self.failure(late.start(at: Self.at(500)))
        #expect(failure?.reason == .deadlineExceeded)
        #expect(failure?.error.retryAfter == .milliseconds(1500))
        #expect(failure?.attempts.isEmpty == true)
    }

    @Test("cancellation: the cancelled rule's error, reason cancelled, the history so far")
    func cancellation() {
        var machine = RequestStateMachine(decider: RetryDecider(policy: Self.policy()))
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.attemptFinished(.status(503), at: Self.at(10), using: &generator)
        let failure = machine.cancelled(at: Self.at(50))
        #expect(failure.reason == .cancelled)
        #expect(failure.error.kind == .cancelled)
        #expect(failure.attempts.count == 1)
        #expect(machine.isFinished)
    }

    @Test("startAdmitted skips the admission check the caller already made")
    func startAdmitted() {
        let decider = RetryDecider(policy: Self.policy(cooldown: .reject))
        decider.cooldown.record(until: Self.origin + .seconds(2), error: SDKError(kind: .status429))
        var machine = RequestStateMachine(decider: decider)
        Self.expectStart(machine.startAdmitted(at: Self.at(0)), 1)
    }

    @Test("without a history the machine keeps the last record only")
    func withoutHistory() {
        var machine = RequestStateMachine(decider: RetryDecider(policy: Self.policy()), keepsHistory: false)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.attemptFinished(.status(503), at: Self.at(0), using: &generator)
        _ = machine.waitFinished(at: Self.at(100))
        _ = machine.attemptFinished(.status(503), at: Self.at(100), using: &generator)
        #expect(machine.history.map(\.number) == [2])
    }

    @Test("a decision carries the error kind it reports, for a retry too")
    func decisionsCarryTheirKind() {
        let decider = RetryDecider(policy: Self.policy())
        #expect(decider.decide(DecisionInput(outcome: .status(503))).errorKind == .status5xx)
        #expect(decider.decide(DecisionInput(outcome: .status(418))).errorKind == .internalError)
        #expect(decider.decide(DecisionInput(outcome: .status(200))).errorKind == nil)
        #expect(decider.decide(DecisionInput(outcome: .status(503), attempt: 3)).errorKind == .status5xx)
    }
}
