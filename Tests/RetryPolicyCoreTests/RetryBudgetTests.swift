import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@Suite struct RetryBudgetTests {
    func policy(budget: RetryBudgetConfiguration = RetryBudgetConfiguration()) -> Policy {
        var policy = TestPolicies.mobileClient
        policy.attempts = 1000
        policy.budget = budget
        return policy
    }

    @Test("Defaults are the AWS standard retry quota: 500 tokens, 5 a retry, 10 after a timeout, 1 refunded")
    func defaults() {
        let budget = RetryBudgetConfiguration()
        #expect(budget.capacity == 500)
        #expect(budget.retryCost == 5)
        #expect(budget.timeoutRetryCost == 10)
        #expect(budget.tokenBucket?.successRefund == 1)
        #expect(budget.consecutiveRetries == 100)
        #expect(budget.consecutiveTimeoutRetries == 50)
    }

    @Test("A retry costs 5; a retry after a timeout costs 10")
    func costs() {
        let decider = RetryDecider(policy: policy())
        #expect(decider.decide(DecisionInput(outcome: .status(503))).budgetCost == 5)
        #expect(decider.budget?.available == 495)
        #expect(decider.decide(DecisionInput(outcome: .transport(.timeout))).budgetCost == 10)
        #expect(decider.budget?.available == 485)
    }

    @Test("An empty budget stops retries with budget_exhausted after exactly capacity/cost retries")
    func exhaustion() {
        let decider = RetryDecider(policy: policy())
        var retries = 0
        while decider.decide(DecisionInput(outcome: .status(503))).isRetry { retries += 1 }
        #expect(retries == 100)
        let decision = decider.decide(DecisionInput(outcome: .status(503)))
        #expect(decision.stopReason == .budgetExhausted)
        #expect(decision.error?.kind == .status5xx)
        #expect(decider.budget?.available == 0)
    }

    @Test("A success without retries refunds 1; after retries, the last retry's cost")
    func refunds() {
        let decider = RetryDecider(policy: policy())
        _ = decider.decide(DecisionInput(outcome: .transport(.timeout)))
        _ = decider.decide(DecisionInput(outcome: .transport(.timeout)))
        #expect(decider.budget?.available == 480)
        _ = decider.decide(DecisionInput(outcome: .status(200), attempt: 3, lastRetryCost: 10))
        #expect(decider.budget?.available == 490)
        _ = decider.decide(DecisionInput(outcome: .status(200)))
        #expect(decider.budget?.available == 491)
    }

    @Test("Refunds never exceed capacity")
    func capacityBound() {
        let decider = RetryDecider(policy: policy())
        for _ in 0..<10 { _ = decider.decide(DecisionInput(outcome: .status(200))) }
        #expect(decider.budget?.available == 500)
    }

    @Test("Stops that are not retries spend nothing")
    func stopsAreFree() {
        let decider = RetryDecider(policy: policy())
        _ = decider.decide(DecisionInput(outcome: .status(404)))
        _ = decider.decide(DecisionInput(outcome: .status(503), method: .post))
        #expect(decider.budget?.available == 500)
    }

    @Test("The budget is shared by every request and safe under concurrency")
    func concurrentWithdrawals() async {
        let decider = RetryDecider(policy: policy())
        let granted = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var count = 0
                    for _ in 0..<100 where decider.decide(DecisionInput(outcome: .status(503))).isRetry { count += 1 }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(granted == 100)
        #expect(decider.budget?.available == 0)
    }
}

@Suite struct CooldownTests {
    let now = Timestamp(secondsSince1970: 1_700_000_000)

    @Test("Wait mode answers wait(remaining)")
    func waitMode() {
        let decider = RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .wait))
        #expect(decider.admit(now: now) == .proceed(ticket: nil))
        _ = decider.decide(DecisionInput(outcome: .status(503, retryAfter: "20"), now: now))
        #expect(decider.admit(now: now + .seconds(5)) == .wait(.seconds(15)))
        #expect(decider.admit(now: now + .seconds(20)) == .proceed(ticket: nil))
    }

    @Test("Off mode never holds a request back")
    func offMode() {
        let decider = RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .off))
        _ = decider.decide(DecisionInput(outcome: .status(429, retryAfter: "20"), now: now))
        #expect(decider.admit(now: now) == .proceed(ticket: nil))
    }

    @Test("A cooldown is clamped to the cap and never shortened by a later, smaller value")
    func clampAndExtend() {
        let decider = RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .wait))  // cap 60 s
        _ = decider.decide(DecisionInput(outcome: .status(429, retryAfter: "100000"), now: now))
        #expect(decider.admit(now: now) == .wait(.seconds(60)))
        _ = decider.decide(DecisionInput(outcome: .status(429, retryAfter: "1"), now: now))
        #expect(decider.admit(now: now) == .wait(.seconds(60)))
    }

    @Test("A cooldown is shared by deciders built over the same gate")
    func sharedGate() {
        let gate = CooldownGate()
        let a = RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .wait), cooldown: gate)
        let b = RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .wait), cooldown: gate)
        _ = a.decide(DecisionInput(outcome: .status(429, retryAfter: "10"), now: now))
        #expect(b.admit(now: now) == .wait(.seconds(10)))
        gate.reset()
        #expect(b.admit(now: now) == .proceed(ticket: nil))
    }
}
