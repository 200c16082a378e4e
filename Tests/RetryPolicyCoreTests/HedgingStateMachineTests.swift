import RetryPolicyCore
import Testing

/// Every transition a hedged request adds to the request state machine,
/// driven by hand on explicit request times.
@Suite struct HedgingStateMachineTests {
    static let origin = Timestamp(secondsSince1970: 1_735_689_600)
    static func at(_ milliseconds: Int) -> RequestTime { RequestTime(.milliseconds(milliseconds), since: origin) }

    /// Three copies 100 ms apart; 5xx and timeouts are retried (non-fatal),
    /// 429 honours Retry-After, 404 stops (fatal), 401 refreshes.
    static func policy(
        attempts: Int = 3, delay: Duration = .milliseconds(100), perAttempt: Duration? = nil, total: Duration? = nil,
        budget: RetryBudgetConfiguration? = nil, breaker: CircuitBreakerConfiguration? = nil,
        cooldown: RetryAfterPolicy.Cooldown = .off, methods: Set<HTTPMethod>? = nil
    ) -> Policy {
        var policy = Policy(
            name: "hedged", attempts: attempts,
            backoff: Backoff(initial: .seconds(5), max: .seconds(5), multiplier: 1, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(10), aboveCap: .clamp, cooldown: cooldown),
            timeouts: TimeoutBudget(perAttempt: perAttempt, total: total), budget: budget,
            rules: [
                Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
                Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.breaker = breaker
        policy.hedging = HedgingPolicy(delay: delay, methods: methods)
        return policy
    }

    static func machine(_ policy: Policy, method: HTTPMethod = .get, markedIdempotent: Bool = false) -> RequestStateMachine {
        RequestStateMachine(
            decider: RetryDecider(policy: policy), request: RetryRequest(method: method, markedIdempotent: markedIdempotent),
            concurrentAttempts: true)
    }

    /// The hedge action's parts, or an issue.
    static func hedge(
        _ action: RequestStateMachine.Action, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> (start: Int?, limit: Duration?, next: Duration?) {
        guard case .hedge(let start, let next) = action else {
            Issue.record("expected a hedge action, got \(action)", sourceLocation: sourceLocation)
            return (nil, nil, nil)
        }
        return (start?.number, start?.timeLimit, next)
    }

    static func failure(_ action: RequestStateMachine.Action, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> RetryFailure? {
        guard case .fail(let failure) = action else {
            Issue.record("expected a failure, got \(action)", sourceLocation: sourceLocation)
            return nil
        }
        return failure
    }

    // MARK: Which requests are hedged

    @Test("idempotent methods are hedged; POST is not, unless marked idempotent; a sequential driver never hedges")
    func whichRequests() {
        let policy = Self.policy()
        #expect(Self.machine(policy, method: .get).isHedged)
        #expect(Self.machine(policy, method: .put).isHedged)
        #expect(!Self.machine(policy, method: .post).isHedged)
        #expect(Self.machine(policy, method: .post, markedIdempotent: true).isHedged)
        #expect(!RequestStateMachine(decider: RetryDecider(policy: policy), request: RetryRequest(method: .get)).isHedged)
        #expect(!Self.machine(Self.policy(methods: [.put]), method: .get).isHedged, "hedging.methods narrows it")
        var plain = policy
        plain.hedging = nil
        #expect(!Self.machine(plain).isHedged)
    }

    // MARK: Copies, delay apart

    @Test("copies start delay apart up to attempts; the first success wins and the others are cancelled")
    func copiesAndWinner() {
        var machine = Self.machine(Self.policy())
        var generator = SplitMix64(seed: 1)
        var step = Self.hedge(machine.start(at: Self.at(0)))
        #expect(step.start == 1 && step.next == .milliseconds(100))
        // A timer that fires early (a stale one) starts nothing.
        step = Self.hedge(machine.hedgeDelayElapsed(at: Self.at(60)))
        #expect(step.start == nil && step.next == .milliseconds(40))
        step = Self.hedge(machine.hedgeDelayElapsed(at: Self.at(100)))
        #expect(step.start == 2 && step.next == .milliseconds(100))
        step = Self.hedge(machine.hedgeDelayElapsed(at: Self.at(200)))
        #expect(step.start == 3 && step.next == nil, "the last copy arms no timer")
        #expect(machine.attemptsInFlight == [1, 2, 3])
        guard case .succeed = machine.attemptFinished(2, .status(200), at: Self.at(250), using: &generator) else {
            Issue.record("copy 2's 200 wins")
            return
        }
        #expect(machine.isFinished)
        #expect(machine.attemptsInFlight.isEmpty)
        #expect(machine.history.map(\.number) == [1, 3, 2], "the losers, then the winner")
        #expect(machine.history[0].outcome == .transport(.cancelled))
        #expect(machine.history[0].duration == .milliseconds(250))
        #expect(machine.history[1].outcome == .transport(.cancelled))
        #expect(machine.history[2].startedAt == .milliseconds(100))
        #expect(machine.history[2].duration == .milliseconds(150))
    }

    @Test("a non-fatal failure starts the next copy at once and restarts the delay")
    func nonFatalStartsNext() {
        var machine = Self.machine(Self.policy())
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        let step = Self.hedge(machine.attemptFinished(1, .status(503), at: Self.at(30), using: &generator))
        #expect(step.start == 2 && step.next == .milliseconds(100))
        #expect(machine.history.map(\.number) == [1])
        #expect(machine.history[0].decision.delay == .zero, "no backoff is drawn for a hedge")
    }

    @Test("a fatal outcome ends the request at once and cancels the copies in flight")
    func fatalStopsAll() {
        var machine = Self.machine(Self.policy())
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.hedgeDelayElapsed(at: Self.at(100))
        let failure = Self.failure(machine.attemptFinished(2, .status(404), at: Self.at(120), using: &generator))
        #expect(failure?.reason == .notRetryable)
        #expect(failure?.kind == .notFound)
        #expect(failure?.attempts.map(\.number) == [1, 2])
        #expect(failure?.attempts.first?.outcome == .transport(.cancelled))
    }

    @Test("a server's Retry-After holds the next copy back until it has passed")
    func serverDelay() {
        var machine = Self.machine(Self.policy())
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        let step = Self.hedge(
            machine.attemptFinished(1, .response(status: 429, headers: ["Retry-After": "2"]), at: Self.at(40), using: &generator))
        #expect(step.start == nil && step.next == .seconds(2))
        let started = Self.hedge(machine.hedgeDelayElapsed(at: Self.at(2040)))
        #expect(started.start == 2)
    }

    @Test("when every copy fails non-fatally, the request fails with the last one, attempts exhausted")
    func allFail() {
        var machine = Self.machine(Self.policy(attempts: 2))
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        let step = Self.hedge(machine.hedgeDelayElapsed(at: Self.at(100)))
        #expect(step.start == 2 && step.next == nil)
        let waiting = Self.hedge(machine.attemptFinished(1, .status(500), at: Self.at(150), using: &generator))
        #expect(waiting.start == nil && waiting.next == nil, "copy 2 is still in flight")
        let failure = Self.failure(machine.attemptFinished(2, .status(502), at: Self.at(180), using: &generator))
        #expect(failure?.reason == .attemptsExhausted)
        #expect(failure?.error.statusCode == 502)
        #expect(failure?.attempts.map(\.number) == [1, 2])
    }

    @Test("each copy's time limit is cut to what is left of the deadline; past it no copy starts")
    func deadline() {
        var machine = Self.machine(Self.policy(perAttempt: .milliseconds(150), total: .milliseconds(220)))
        var generator = SplitMix64(seed: 1)
        var step = Self.hedge(machine.start(at: Self.at(0)))
        #expect(step.limit == .milliseconds(150))
        step = Self.hedge(machine.hedgeDelayElapsed(at: Self.at(100)))
        #expect(step.start == 2 && step.limit == .milliseconds(120))
        // Copy 1's timeout is non-fatal: copy 3 starts at once, with the
        // 70 ms left of the deadline.
        step = Self.hedge(machine.attemptFinished(1, .transport(.timeout), at: Self.at(150), using: &generator))
        #expect(step.start == 3 && step.limit == .milliseconds(70))
        #expect(machine.attemptsInFlight == [2, 3])
        let step3 = Self.hedge(machine.attemptFinished(3, .transport(.timeout), at: Self.at(220), using: &generator))
        #expect(step3.start == nil && step3.next == nil, "copy 2 is still in flight; no copy 4")
    }

    // MARK: Budget, cooldown, breaker

    @Test("each copy after the first is paid from the budget; when it refuses, no further copy starts")
    func budget() {
        let budget = RetryBudgetConfiguration(capacity: 5, retryCost: 5, timeoutRetryCost: 5, successRefund: 1)
        let decider = RetryDecider(policy: Self.policy(budget: budget))
        var machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get), concurrentAttempts: true)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        #expect(Self.hedge(machine.hedgeDelayElapsed(at: Self.at(100))).start == 2)
        #expect(decider.budget?.available == 0)
        let halted = Self.hedge(machine.attemptFinished(1, .status(503), at: Self.at(150), using: &generator))
        #expect(halted.start == nil && halted.next == nil, "the budget pays for no copy 3")
        let failure = Self.failure(machine.attemptFinished(2, .status(503), at: Self.at(160), using: &generator))
        #expect(failure?.reason == .budgetExhausted)
        #expect(decider.budget?.available == 0)
    }

    @Test("the winner's cost comes back to the budget")
    func refund() {
        let budget = RetryBudgetConfiguration(capacity: 10, retryCost: 5, timeoutRetryCost: 5, successRefund: 1)
        let decider = RetryDecider(policy: Self.policy(budget: budget))
        var machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get), concurrentAttempts: true)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.hedgeDelayElapsed(at: Self.at(100))
        #expect(decider.budget?.available == 5)
        guard case .succeed = machine.attemptFinished(2, .status(200), at: Self.at(120), using: &generator) else {
            Issue.record("copy 2 wins")
            return
        }
        #expect(decider.budget?.available == 10)
    }

    @Test("a cooldown in reject mode halts hedging; the request then ends with the cooldown's error")
    func cooldownReject() {
        let decider = RetryDecider(policy: Self.policy(cooldown: .reject))
        var machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get), concurrentAttempts: true)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        decider.cooldown.record(until: Self.origin + .seconds(5), error: SDKError(kind: .status429, statusCode: 429))
        let halted = Self.hedge(machine.hedgeDelayElapsed(at: Self.at(100)))
        #expect(halted.start == nil && halted.next == nil)
        let failure = Self.failure(machine.attemptFinished(1, .status(503), at: Self.at(150), using: &generator))
        #expect(failure?.kind == .status429)
        #expect(failure?.reason == .notRetryable)
        #expect(machine.rejectedByCooldown)
    }

    @Test("an open circuit breaker refuses further copies; the request ends with circuit_open")
    func breaker() {
        let breaker = CircuitBreakerConfiguration(sampling: .count(2), minimumCalls: 1, consecutiveFailures: 1, breakDuration: .seconds(30))
        let decider = RetryDecider(policy: Self.policy(breaker: breaker))
        var machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get), concurrentAttempts: true)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.hedgeDelayElapsed(at: Self.at(100))
        // Copy 1's failure opens the breaker; copy 3 is refused.
        let step = Self.hedge(machine.attemptFinished(1, .status(503), at: Self.at(120), using: &generator))
        #expect(step.start == nil)
        let failure = Self.failure(machine.attemptFinished(2, .status(503), at: Self.at(130), using: &generator))
        #expect(failure?.reason == .circuitOpen)
        #expect(machine.rejectedByBreaker)
    }

    @Test("a rule asking to refresh credentials ends a hedged request: the copies in flight carry the old ones")
    func refreshIsFatal() {
        var machine = Self.machine(Self.policy())
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        _ = machine.hedgeDelayElapsed(at: Self.at(100))
        let failure = Self.failure(machine.attemptFinished(1, .status(401), at: Self.at(110), using: &generator))
        #expect(failure?.reason == .notRetryable)
        #expect(failure?.kind == .unauthorized)
        #expect(machine.credentialRefreshes == 0)
    }

    @Test("cancelling a hedged request ends it with every copy in flight")
    func cancellation() {
        var machine = Self.machine(Self.policy())
        _ = machine.start(at: Self.at(0))
        _ = machine.hedgeDelayElapsed(at: Self.at(100))
        let failure = machine.cancelled(at: Self.at(150))
        #expect(failure.reason == .cancelled)
        #expect(machine.isFinished)
        #expect(machine.attemptsInFlight.isEmpty)
    }
}
