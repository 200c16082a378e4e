import PropertyBased
import RetryPolicyCore
import Testing

/// A store whose payments wait (as a database's do): the asynchronous
/// forms answer from one shared bucket, the forms without waiting from the
/// budget's own view; both are counted.
final class WaitingStateStore: RetryStateStore {
    struct Calls: Equatable {
        var awaited: [Int] = []
        var withoutWaiting: [Int] = []
    }

    let shared: LockedValue<Int>
    let calls = LockedValue(Calls())

    init(tokens: Int) { shared = LockedValue(tokens) }

    var paymentsWait: Bool { true }

    func withdraw(_ cost: Int, from budget: RetryBudget) async -> Bool {
        await Task.yield()
        calls.withLock { $0.awaited.append(cost) }
        let left: Int? = shared.withLock { tokens in
            guard tokens >= cost else { return nil }
            tokens -= cost
            return tokens
        }
        guard let left else { return false }
        budget.synchronize(available: left)
        return true
    }

    func drain(_ cost: Int, from budget: RetryBudget) async -> Int {
        await Task.yield()
        calls.withLock { $0.awaited.append(cost) }
        let left = shared.withLock { tokens in
            tokens = max(tokens - cost, 0)
            return tokens
        }
        budget.synchronize(available: left)
        return left
    }

    func withdrawWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Bool {
        calls.withLock { $0.withoutWaiting.append(cost) }
        return shared.withLock { tokens in
            guard tokens >= cost else { return false }
            tokens -= cost
            return true
        }
    }

    func drainWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Int {
        calls.withLock { $0.withoutWaiting.append(cost) }
        return shared.withLock { tokens in
            tokens = max(tokens - cost, 0)
            return tokens
        }
    }

    func deposit(_ amount: Int, to budget: RetryBudget) {
        shared.withLock { $0 = min($0 + amount, budget.configuration.capacity) }
        budget.depositLocally(amount)
    }

    func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {}
}

@Suite("A budget whose store waits: the machine hands the payment to its driver")
struct WaitingBudgetTests {
    static let origin = Timestamp(secondsSince1970: 1_700_000_000)
    static func at(_ milliseconds: Int) -> RequestTime { RequestTime(.milliseconds(milliseconds), since: origin) }

    static func policy(capacity: Int = 20, attempts: Int = 3, budget: RetryBudgetConfiguration? = nil) -> Policy {
        Policy(
            name: "fleet",
            attempts: attempts,
            backoff: Backoff(initial: .milliseconds(100), max: .milliseconds(100), multiplier: 1, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), cooldown: .off),
            budget: budget ?? RetryBudgetConfiguration(capacity: capacity, retryCost: 5, timeoutRetryCost: 10, successRefund: 1),
            rules: [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)])
    }

    @Test("A retry's payment is an action; the attempt is recorded once it is paid")
    func paymentIsAnAction() throws {
        let store = WaitingStateStore(tokens: 20)
        let decider = RetryDecider(policy: Self.policy(), store: store)
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        guard case .startAttempt = machine.start(at: Self.at(0)) else { Issue.record("no first attempt"); return }
        guard case .payBudget(let payment) = machine.attemptFinished(.status(503), at: Self.at(10), using: &generator)
        else {
            Issue.record("a retry under a waiting store pays through its driver")
            return
        }
        #expect(payment.kind == .withdraw && payment.cost == 5 && payment.budget === decider.budget)
        // Nothing paid yet, nothing recorded yet.
        #expect(store.calls.withLock { $0 } == WaitingStateStore.Calls())
        #expect(machine.history.isEmpty)
        guard case .wait(let delay, .backoff) = machine.budgetPaid(true, at: Self.at(30)) else {
            Issue.record("a paid retry backs off")
            return
        }
        #expect(delay == .milliseconds(100))
        let record = try #require(machine.history.last)
        #expect(record.number == 1 && record.decision.isRetry && record.decision.budgetCost == 5)
        // The record keeps when the attempt ended, not when it was paid.
        #expect(record.duration == .milliseconds(10))
    }

    @Test("A refused payment stops the request with budget_exhausted and the attempt's own error")
    func refusedPayment() throws {
        let decider = RetryDecider(policy: Self.policy(), store: WaitingStateStore(tokens: 0))
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        let outcome = AttemptOutcome.response(status: 503, headers: ["Retry-After": "2"])
        guard case .payBudget = machine.attemptFinished(outcome, at: Self.at(5), using: &generator) else {
            Issue.record("expected a payment")
            return
        }
        guard case .fail(let failure) = machine.budgetPaid(false, at: Self.at(6)) else {
            Issue.record("a refused payment ends the request")
            return
        }
        #expect(failure.reason == .budgetExhausted)
        #expect(failure.error.kind == .status5xx && failure.error.statusCode == 503)
        #expect(failure.error.retryAfter == .seconds(2))
        #expect(machine.history.last?.decision.stopReason == .budgetExhausted)
        #expect(machine.history.last?.decision.budgetCost == 0)
    }

    @Test("gRPC throttling: a failure that stops first drains without waiting; one that may retry drains through the driver")
    func grpcDrains() throws {
        let store = WaitingStateStore(tokens: 10_000)
        let decider = RetryDecider(
            policy: Self.policy(attempts: 2, budget: .grpc(maxTokens: 10, tokenRatioThousandths: 100)), store: store)
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        guard case .payBudget(let payment) = machine.attemptFinished(.status(503), at: Self.at(1), using: &generator) else {
            Issue.record("expected a drain")
            return
        }
        #expect(payment.kind == .drain && payment.cost == 1000)
        guard case .wait = machine.budgetPaid(true, at: Self.at(2)) else { Issue.record("expected a backoff"); return }
        _ = machine.waitFinished(at: Self.at(102))
        // The last attempt: attempts are exhausted, but the failure counts.
        guard case .fail(let failure) = machine.attemptFinished(.status(503), at: Self.at(103), using: &generator) else {
            Issue.record("expected the end")
            return
        }
        #expect(failure.reason == .attemptsExhausted)
        #expect(store.calls.withLock { $0 }.withoutWaiting == [1000])
        #expect(store.shared.withLock { $0 } == 9_000)
    }

    /// The synchronous form (async code reaches the asynchronous one).
    static func decideWithoutWaiting(_ decider: RetryDecider, _ input: DecisionInput) -> Decision {
        decider.decide(input)
    }

    @Test("The synchronous decide never waits; decidePaying pays through the store")
    func decideForms() async {
        let store = WaitingStateStore(tokens: 20)
        let decider = RetryDecider(policy: Self.policy(), store: store)
        let input = DecisionInput(outcome: .status(503))
        let sync = Self.decideWithoutWaiting(decider, input)
        #expect(sync.isRetry)
        #expect(store.calls.withLock { $0 } == WaitingStateStore.Calls(awaited: [], withoutWaiting: [5]))
        let async: Decision = await decider.decidePaying(input)
        #expect(async.isRetry && async.budgetCost == 5)
        #expect(store.calls.withLock { $0 } == WaitingStateStore.Calls(awaited: [5], withoutWaiting: [5]))
        #expect(store.shared.withLock { $0 } == 10)
    }

    @Test("An override that turns a stop into a retry pays through the driver too")
    func overridePays() {
        let store = WaitingStateStore(tokens: 20)
        let decider = RetryDecider(policy: Self.policy(), store: store)
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: Self.at(0))
        // 404 is not retried by the policy; the override retries it.
        let action = machine.attemptFinished(
            .status(404), at: Self.at(1), override: .retry(after: .milliseconds(7)), using: &generator)
        guard case .payBudget(let payment) = action else { Issue.record("expected a payment"); return }
        #expect(payment.kind == .withdraw && payment.cost == 5)
        guard case .wait(let delay, _) = machine.budgetPaid(true, at: Self.at(2)) else { Issue.record("expected a wait"); return }
        #expect(delay == .milliseconds(7))
    }

    /// What a request does, described without the payments.
    static func story(of decider: RetryDecider, outcomes: [Int]) -> [String] {
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 7)
        var story: [String] = []
        var now = 0
        var action = machine.start(at: Self.at(now))
        var next = outcomes.makeIterator()
        while true {
            switch action {
            case .startAttempt(let number, _):
                story.append("attempt \(number)")
                now += 1
                action = machine.attemptFinished(.status(next.next() ?? 200), at: Self.at(now), using: &generator)
            case .payBudget(let payment):
                action = machine.budgetPaid(payment.settleWithoutWaiting(), at: Self.at(now))
            case .claimProbe(let claim):
                action = machine.probeClaimed(claim.settleWithoutWaiting(), at: Self.at(now))
            case .wait(let delay, let reason):
                story.append("wait \(delay) \(reason)")
                now += 100
                action = machine.waitFinished(at: Self.at(now))
            case .refreshCredentials:
                action = machine.credentialRefreshFinished(at: Self.at(now))
            case .succeed:
                return story + ["succeed"]
            case .fail(let failure):
                return story + ["fail \(failure.reason) \(failure.error.kind)", "history \(machine.history.count)"]
            case .hedge:
                return story + ["hedge"]
            }
        }
    }

    @Test("Paying through the driver changes nothing a request does: the same story as a budget in memory")
    func sameStory() async {
        await propertyCheck(
            input: Gen.int(in: 0...30), Gen.int(in: 1...6), Gen.int(in: 0...1).array(of: 0...8),
            Gen.int(in: 0...1)
        ) { capacity, attempts, failures, style in
            let budget: RetryBudgetConfiguration =
                style == 0
                ? RetryBudgetConfiguration(capacity: capacity, retryCost: 5, timeoutRetryCost: 10, successRefund: 1)
                : .grpc(maxTokens: capacity / 3 + 1, tokenRatioThousandths: 100)
            let policy = Self.policy(attempts: attempts, budget: budget)
            let outcomes = failures.map { $0 == 1 ? 503 : 200 }
            let inMemory = RetryDecider(policy: policy)
            let waiting = RetryDecider(policy: policy, store: WaitingStateStore(tokens: budget.capacity))
            #expect(Self.story(of: inMemory, outcomes: outcomes) == Self.story(of: waiting, outcomes: outcomes))
        }
    }
}
