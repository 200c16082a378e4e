import PropertyBased
import RetryPolicyCore
import Testing

/// What code adds to a policy: declared conditions, overrides, a request's
/// retryability, and backoff floors, open caps and backoffs in code.
@Suite struct CodeDecisionTests {
    static func policy(attempts: Int = 3, total: Duration? = nil, budget: RetryBudgetConfiguration? = nil) -> Policy {
        var policy = Policy(
            name: "code", attempts: attempts, backoff: Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .none),
            timeouts: TimeoutBudget(total: total), budget: budget,
            rules: [
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
                Rule(conditions: ["malformed_body"], error: .status5xx, action: .retry),
                Rule(conditions: ["account_locked"], error: .unauthorized, action: .stop),
                Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.conditions = ["malformed_body", "account_locked", "undecided"]
        return policy
    }

    // MARK: Conditions

    @Test func aConditionIsDecidedByTheRuleThatNamesIt() {
        let decider = RetryDecider(policy: Self.policy())
        let retried = decider.decide(DecisionInput(outcome: .condition("malformed_body")))
        #expect(retried.delay == .seconds(1))
        #expect(retried.ruleIndex == 1)
        let stopped = decider.decide(DecisionInput(outcome: .condition("account_locked")))
        #expect(stopped.error?.kind == .unauthorized)
        #expect(stopped.error?.condition == "account_locked")
        #expect(stopped.error?.message == "unauthorized: condition account_locked")
    }

    @Test func aConditionNoRuleNamesTakesTheDefaultNeverTheImplicitSuccess() {
        let decision = RetryDecider(policy: Self.policy()).decide(DecisionInput(outcome: .condition("undecided")))
        #expect(decision.ruleIndex == nil)
        #expect(decision.error?.kind == .internalError)
        #expect(decision.stopReason == .notRetryable)
    }

    @Test func aRuleRestrictedToMethodsMatchesConditionsOnlyForThem() {
        var policy = Self.policy()
        policy.rules[1].methods = [.get]
        let decider = RetryDecider(policy: policy)
        #expect(decider.matchingRule(for: .condition("malformed_body"), method: .get) == 1)
        #expect(decider.matchingRule(for: .condition("malformed_body"), method: .put) == nil)
    }

    // MARK: Overrides

    @Test func anOverrideRetriesAfterItsOwnDelayWithinTheAttempts() {
        let decider = RetryDecider(policy: Self.policy())
        let input = DecisionInput(outcome: .status(404), attempt: 1)
        let decided = decider.decide(input)
        #expect(decided.stopReason == .notRetryable)
        let retried = decider.applying(.retry(after: .milliseconds(250)), to: decided, input: input)
        #expect(retried.delay == .milliseconds(250))
        #expect(retried.delayBounds == .milliseconds(250) ... .milliseconds(250))
        #expect(retried.errorKind == .notFound)
        // The last attempt stays the last, whatever the override says.
        let last = DecisionInput(outcome: .status(404), attempt: 3)
        #expect(decider.applying(.retry(after: .zero), to: decider.decide(last), input: last).stopReason == .attemptsExhausted)
    }

    @Test func anOverrideKeepsTheDeadline() {
        let decider = RetryDecider(policy: Self.policy(total: .seconds(5)))
        let input = DecisionInput(outcome: .status(404), attempt: 1, elapsed: .seconds(4))
        let decision = decider.applying(.retry(after: .seconds(2)), to: decider.decide(input), input: input)
        #expect(decision.stopReason == .deadlineExceeded)
    }

    @Test func anOverrideRetryPaysTheBudgetAndAStopGivesItBack() {
        let budget = RetryBudgetConfiguration(capacity: 10, retryCost: 5)
        let decider = RetryDecider(policy: Self.policy(budget: budget))
        let notFound = DecisionInput(outcome: .status(404), attempt: 1)
        #expect(decider.applying(.retry(after: .zero), to: decider.decide(notFound), input: notFound).isRetry)
        #expect(decider.budget?.available == 5)
        let unavailable = DecisionInput(outcome: .status(503), attempt: 1)
        let retry = decider.decide(unavailable)
        #expect(retry.isRetry && decider.budget?.available == 0)
        let stopped = decider.applying(.stop, to: retry, input: unavailable)
        #expect(stopped.stopReason == .notRetryable)
        #expect(stopped.error?.kind == .status5xx && stopped.error?.statusCode == 503)
        #expect(decider.budget?.available == 5)
        // An empty budget refuses an override's retry.
        _ = decider.decide(unavailable)
        #expect(decider.applying(.retry(after: .zero), to: decider.decide(notFound), input: notFound).stopReason == .budgetExhausted)
    }

    @Test func anOverrideNeitherRevivesACancellationNorTurnsASuccessIntoAFailure() {
        let decider = RetryDecider(policy: Self.policy())
        let cancelled = DecisionInput(outcome: .transport(.cancelled))
        #expect(decider.applying(.retry(after: .zero), to: decider.decide(cancelled), input: cancelled).stopReason == .cancelled)
        let ok = DecisionInput(outcome: .status(200))
        #expect(decider.applying(.stop, to: decider.decide(ok), input: ok).action == .success)
    }

    // MARK: Retryability

    @Test func anUnsafeRequestIsNeverRetriedNorHedged() {
        var policy = Self.policy()
        policy.hedging = HedgingPolicy(delay: .milliseconds(100))
        let decider = RetryDecider(policy: policy)
        var input = DecisionInput(outcome: .status(503), method: .get)
        #expect(decider.decide(input).isRetry)
        input.markedUnsafe = true
        #expect(decider.decide(input).stopReason == .notIdempotent)
        let machine = RequestStateMachine(
            decider: decider, request: RetryRequest(method: .get, retryability: .unsafe), concurrentAttempts: true)
        #expect(machine.request.retryability == .unsafe)
        var hedged = RequestStateMachine(decider: decider, request: RetryRequest(method: .get), concurrentAttempts: true)
        var unsafe = machine
        let at = RequestTime(elapsed: .zero, wall: Timestamp(secondsSince1970: 0))
        if case .hedge = hedged.start(at: at) {} else { Issue.record("a safe GET hedges") }
        if case .startAttempt = unsafe.start(at: at) {} else { Issue.record("an unsafe GET does not hedge") }
    }

    @Test func markedIdempotentIsTheIdempotentRetryability() {
        var request = RetryRequest(method: .post, markedIdempotent: true)
        #expect(request.retryability == .idempotent)
        request.markedIdempotent = false
        #expect(request.retryability == .asPolicySays)
        #expect(RetryRequest(method: .get, retryability: .unsafe).markedIdempotent == false)
    }

    // MARK: Backoff

    @Test func aFloorRaisesOnlyTheDelaysBelowIt() {
        let backoff = Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .full, min: .milliseconds(300))
        #expect(backoff.bounds(forRetry: 1, previousDelay: nil) == .milliseconds(300) ... .seconds(1))
        var generator = SplitMix64(seed: 7)
        var unfloored = SplitMix64(seed: 7)
        var plain = backoff
        plain.min = .zero
        for k in 1...200 {
            let delay = backoff.delay(forRetry: k % 6 + 1, previousDelay: nil, using: &generator)
            let without = plain.delay(forRetry: k % 6 + 1, previousDelay: nil, using: &unfloored)
            #expect(delay == max(without, .milliseconds(300)))
        }
    }

    @Test func withoutACapGrowthGoesOnToTheCeiling() {
        let backoff = Backoff(initial: .seconds(1), max: nil, multiplier: 10, jitter: .none)
        #expect(backoff.base(forRetry: 5) == .seconds(10_000))
        #expect(backoff.base(forRetry: 60) == Backoff.ceiling)
    }

    @Test func aBackoffInCodeIsCappedFlooredAndJitteredLikeTheNamedShapes() {
        let fibonacci = Backoff.custom("fibonacci", max: .seconds(10), jitter: .none, min: .milliseconds(500)) { retry in
            var (a, b) = (0, 1)
            for _ in 0..<retry { (a, b) = (b, a + b) }
            return .seconds(a)
        }
        #expect(fibonacci.initial == .seconds(1))
        #expect(fibonacci.growth.name == nil)
        #expect((1...8).map { fibonacci.base(forRetry: $0) } == [1, 1, 2, 3, 5, 8, 10, 10].map { Duration.seconds($0) })
        let zeroFirst = Backoff.custom("zero-first", jitter: .none, min: .milliseconds(500)) { $0 == 1 ? .zero : .seconds(1) }
        #expect(zeroFirst.bounds(forRetry: 1, previousDelay: nil) == .milliseconds(500) ... .milliseconds(500))
        // Equal by name, so a policy holding one stays comparable.
        #expect(fibonacci.growth == Backoff.custom("fibonacci") { _ in .zero }.growth)
    }

    @Test func everyDelayIsWithinTheFloorAndTheCap() async {
        await propertyCheck(
            input: Gen.int(in: 0...5_000), Gen.int(in: 0...5_000), Gen.int(in: 1...60), Gen.int(in: 0...3), Gen.uint64()
        ) { initial, floor, retry, jitter, seed in
            let backoff = Backoff(
                initial: .milliseconds(initial), max: .seconds(30), multiplier: 2,
                jitter: Backoff.Jitter.allCases[jitter], min: .milliseconds(min(floor, 30_000)))
            var generator = SplitMix64(seed: seed)
            let delay = backoff.delay(forRetry: retry, previousDelay: nil, using: &generator)
            #expect(delay >= backoff.min)
            #expect(delay <= max(.seconds(30), backoff.min))
            #expect(backoff.bounds(forRetry: retry, previousDelay: nil).contains(delay))
        }
    }
}
