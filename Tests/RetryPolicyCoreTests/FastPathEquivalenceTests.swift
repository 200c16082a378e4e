import PropertyBased
import RetryPolicyCore
import Testing

/// The executor settles a first-try success and checks for time limits
/// through shortcuts; these must agree with the full decision for every
/// policy and outcome, or the fast path would change behaviour.
@Suite struct FastPathEquivalenceTests {
    static let outcomes: [AttemptOutcome] = DecisionInvariantTests.outcomes + [
        .status(201), .status(299), .status(300), .status(304), .status(401),
    ]

    /// A generated policy, with rules that reinterpret some 2xx (a 204 as
    /// an error) and some failures (a 404 as a success).
    static func policy(seed: UInt64) -> Policy {
        var policy = DecisionInvariantTests.policy(seed: seed, attempts: Int(seed % 5) + 1)
        switch seed % 4 {
        case 0: policy.rules.insert(Rule(statuses: [.code(204)], error: .noFill, action: .stop), at: 0)
        case 1: policy.rules.insert(Rule(statuses: [.code(404)], action: .success), at: 0)
        case 2: policy.rules.insert(Rule(statuses: [.code(201)], methods: [.post], error: .networkError, action: .retry), at: 0)
        default: break
        }
        if seed % 3 == 0 { policy.budget = RetryBudgetConfiguration(capacity: 10, successRefund: 2) }
        return policy
    }

    @Test("settlePlainSuccess(ofFirstAttempt:) succeeds exactly when decide does, and refunds the same")
    func settleMatchesDecide() async {
        await propertyCheck(
            count: 500,
            input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...(Self.outcomes.count - 1)), Gen.bool
        ) { seed, index, isPost in
            let policy = Self.policy(seed: seed)
            let outcome = Self.outcomes[index]
            let method: HTTPMethod = isPost ? .post : .get
            let deciding = RetryDecider(policy: policy)
            let settling = RetryDecider(policy: policy)
            // A half-spent budget, so a refund is visible.
            if let budget = deciding.budget, let other = settling.budget {
                _ = budget.withdraw(budget.configuration.capacity / 2)
                _ = other.withdraw(other.configuration.capacity / 2)
            }
            // What any budget style holds before settling.
            let before = settling.budget?.available

            var generator = SplitMix64(seed: seed)
            let decision = deciding.decide(
                DecisionInput(outcome: outcome, attempt: 1, elapsed: .zero, method: method), using: &generator)
            let settled = settling.settlePlainSuccess(ofFirstAttempt: outcome, method: method)

            if case .success = decision.action {
                #expect(settled, "\(outcome) \(method)")
                #expect(deciding.budget?.available == settling.budget?.available)
            } else {
                #expect(!settled, "\(outcome) \(method)")
            }
            if !settled {
                // Nothing was decided: the budget is untouched.
                #expect(settling.budget?.available == before)
            }
        }
    }

    @Test("hasTimeLimits(forEndpoint:) agrees with the timeout budget, with and without endpoint overrides")
    func timeLimitsMatchBudget() async {
        let durations: [Duration?] = [nil, .seconds(1), .seconds(30)]
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 0...2), Gen.int(in: 0...2), Gen.int(in: 0...2), Gen.int(in: 0...2), Gen.int(in: 0...2)
        ) { perAttempt, total, overridePerAttempt, overrideTotal, endpointChoice in
            var policy = DecisionInvariantTests.policy(seed: 7, attempts: 3)
            policy.timeouts = TimeoutBudget(perAttempt: durations[perAttempt], total: durations[total])
            policy.endpoints = ["feed": TimeoutBudget(perAttempt: durations[overridePerAttempt], total: durations[overrideTotal])]
            let decider = RetryDecider(policy: policy)
            let endpoint = [nil, "feed", "other"][endpointChoice]
            let budget = policy.timeouts(for: endpoint)
            #expect(decider.hasTimeLimits(forEndpoint: endpoint) == (budget.perAttempt != nil || budget.total != nil))
        }
    }
}
