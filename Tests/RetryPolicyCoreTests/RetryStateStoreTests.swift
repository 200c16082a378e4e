import RetryPolicyCore
import Testing

/// A store that shares one bucket and records what it is asked, standing in
/// for a fleet-wide store in unit tests.
final class RecordingStateStore: RetryStateStore {
    struct Calls: Equatable {
        var withdrawals: [Int] = []
        var drains: [Int] = []
        var deposits: [Int] = []
        var cooldowns: [Timestamp] = []
        var keys: Set<String> = []
    }

    let shared: LockedValue<Int>
    let calls = LockedValue(Calls())
    /// Gates that receive cooldowns recorded by any of them, as a store's
    /// notifications would deliver them.
    let gates = LockedValue<[CooldownGate]>([])

    init(tokens: Int) { shared = LockedValue(tokens) }

    func withdrawWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Bool {
        calls.withLock {
            $0.withdrawals.append(cost)
            $0.keys.insert(budget.key ?? "")
        }
        let left: Int? = shared.withLock { tokens in
            guard tokens >= cost else { return nil }
            tokens -= cost
            return tokens
        }
        guard let left else { return false }
        budget.synchronize(available: left)
        return true
    }

    func drainWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Int {
        calls.withLock {
            $0.drains.append(cost)
            $0.keys.insert(budget.key ?? "")
        }
        let left = shared.withLock { tokens in
            tokens = max(tokens - cost, 0)
            return tokens
        }
        budget.synchronize(available: left)
        return left
    }

    func deposit(_ amount: Int, to budget: RetryBudget) {
        calls.withLock { $0.deposits.append(amount) }
        budget.depositLocally(amount)
    }

    func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {
        calls.withLock {
            $0.cooldowns.append(until)
            $0.keys.insert(gate.key ?? "")
        }
        for other in gates.withLock({ $0 }) where other !== gate { other.apply(until: until, error: error) }
    }
}

@Suite struct RetryStateStoreTests {
    let now = Timestamp(secondsSince1970: 1_700_000_000)

    func policy(capacity: Int = 20) -> Policy {
        Policy(
            name: "fleet",
            attempts: 1000,
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), cooldown: .wait),
            budget: RetryBudgetConfiguration(capacity: capacity, retryCost: 5, timeoutRetryCost: 10, successRefund: 1),
            rules: [
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
            ])
    }

    @Test("Without a store the budget and gate keep their state locally, as before")
    func defaultIsLocal() {
        let decider = RetryDecider(policy: policy())
        #expect(decider.budget?.store == nil)
        #expect(decider.budget?.key == nil)
        #expect(decider.cooldown.store == nil)
        #expect(decider.decide(DecisionInput(outcome: .status(503))).isRetry)
        #expect(decider.budget?.available == 15)
    }

    @Test("The in-memory store behaves exactly like no store")
    func inMemoryStore() {
        let plain = RetryDecider(policy: policy())
        let stored = RetryDecider(policy: policy(), store: InMemoryRetryStateStore())
        for outcome: AttemptOutcome in [.status(503), .transport(.timeout), .status(200), .status(503), .status(503), .status(503)] {
            let a = plain.decide(DecisionInput(outcome: outcome))
            let b = stored.decide(DecisionInput(outcome: outcome))
            #expect(a.isRetry == b.isRetry)
            #expect(a.stopReason == b.stopReason)
            #expect(plain.budget?.available == stored.budget?.available)
        }
    }

    @Test("The key defaults to the policy's name; callers may pass another")
    func keys() {
        let store = RecordingStateStore(tokens: 100)
        let byName = RetryDecider(policy: policy(), store: store)
        #expect(byName.budget?.key == policy().name)
        #expect(byName.cooldown.key == policy().name)
        let byAPIKey = RetryDecider(policy: policy(), store: store, key: "tmdb:key-1")
        #expect(byAPIKey.budget?.key == "tmdb:key-1")
        #expect(byAPIKey.cooldown.key == "tmdb:key-1")
    }

    @Test("Every retry withdraws through the store, so deciders in different processes share one bucket")
    func sharedWithdrawals() {
        let store = RecordingStateStore(tokens: 20)
        let a = RetryDecider(policy: policy(capacity: 20), store: store)
        let b = RetryDecider(policy: policy(capacity: 20), store: store)
        var retries = 0
        for turn in 0..<20 {
            let decider = turn.isMultiple(of: 2) ? a : b
            if decider.decide(DecisionInput(outcome: .status(503))).isRetry { retries += 1 }
        }
        // 20 tokens at 5 a retry: 4 retries between both, not 4 each.
        #expect(retries == 4)
        #expect(store.calls.withLock { $0.withdrawals.count } == 20)
        #expect(a.decide(DecisionInput(outcome: .status(503))).stopReason == .budgetExhausted)
    }

    @Test("A first-try success deposits through the store; nothing is withdrawn")
    func successDeposits() {
        let store = RecordingStateStore(tokens: 20)
        let decider = RetryDecider(policy: policy(), store: store)
        #expect(decider.settlePlainSuccess(ofFirstAttempt: .status(200), method: .get))
        _ = decider.decide(DecisionInput(outcome: .status(200)))
        #expect(store.calls.withLock { $0 }.deposits == [1, 1])
        #expect(store.calls.withLock { $0 }.withdrawals.isEmpty)
    }

    @Test("A cooldown recorded by one decider is shared; admission reads only local state")
    func sharedCooldown() {
        let store = RecordingStateStore(tokens: 20)
        let a = RetryDecider(policy: policy(), store: store)
        let b = RetryDecider(policy: policy(), store: store)
        store.gates.withLock { $0 = [a.cooldown, b.cooldown] }
        _ = a.decide(DecisionInput(outcome: .status(429, retryAfter: "3"), now: now))
        #expect(store.calls.withLock { $0 }.cooldowns == [now + .seconds(3)])
        #expect(b.admit(now: now) == .wait(.seconds(3)))
    }

    @Test("A shorter cooldown neither shortens an active one nor is shared again")
    func cooldownOnlyExtends() {
        let store = RecordingStateStore(tokens: 20)
        let gate = CooldownGate(store: store, key: "k")
        let error = SDKError(kind: .status429, statusCode: 429)
        gate.record(until: now + .seconds(10), error: error)
        gate.record(until: now + .seconds(2), error: error)
        #expect(store.calls.withLock { $0 }.cooldowns == [now + .seconds(10)])
        #expect(gate.apply(until: now + .seconds(5), error: error) == false)
        #expect(gate.active(at: now)?.until == now + .seconds(10))
        #expect(gate.apply(until: now + .seconds(20), error: error))
        #expect(gate.active(at: now)?.until == now + .seconds(20))
    }

    @Test("synchronize clamps the local view to 0...capacity")
    func synchronizeClamps() {
        let budget = RetryBudget(configuration: RetryBudgetConfiguration(capacity: 10), store: InMemoryRetryStateStore(), key: "k")
        budget.synchronize(available: 50)
        #expect(budget.available == 10)
        budget.synchronize(available: -3)
        #expect(budget.available == 0)
        #expect(budget.withdraw(1) == false)
        budget.deposit(4)
        #expect(budget.available == 4)
    }
}
