import PropertyBased
import RetryPolicyCore
import RetryPolicySimulation
import Testing

/// Invariants of hedged requests, over generated policies and servers, on
/// the simulator (which the agreement test ties to the executor).
@Suite("Hedging invariants")
struct HedgingPropertyTests {
    static func policy(_ genes: [Int]) -> Policy {
        func pick<T>(_ index: Int, _ options: [T]) -> T { options[genes[index] % options.count] }
        var policy = Policy(
            name: "hedged", attempts: 1 + genes[0] % 6,
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(3), aboveCap: pick(1, RetryAfterPolicy.AboveCap.allCases), cooldown: pick(2, RetryAfterPolicy.Cooldown.allCases)),
            timeouts: TimeoutBudget(perAttempt: pick(3, [nil, .milliseconds(150), .seconds(1)]), total: pick(4, [nil, .milliseconds(400), .seconds(3)])),
            budget: pick(5, [nil, RetryBudgetConfiguration(capacity: 10, retryCost: 5, timeoutRetryCost: 5, successRefund: 1), .grpc(maxTokens: 4, tokenRatioThousandths: 500)]),
            rules: [
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
                Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.hedging = HedgingPolicy(delay: .milliseconds(pick(6, [10, 50, 120])))
        if genes[7] % 2 == 1 {
            policy.breaker = CircuitBreakerConfiguration(sampling: .count(4), minimumCalls: 2, consecutiveFailures: 2, breakDuration: .milliseconds(200), halfOpenProbes: 1)
        }
        return policy
    }

    static func response(_ code: Int) -> (ScriptedResponse, Duration) {
        let outcomes: [AttemptOutcome] = [
            .status(200), .status(503), .response(status: 429, headers: ["Retry-After": "1"]), .transport(.timeout),
            .status(404), .status(500),
        ]
        return (ScriptedResponse(outcome: outcomes[code % outcomes.count]), .milliseconds(1 + (code / 6) % 300))
    }

    @Test("copies never exceed attempts, never outlive the request, and at most one wins")
    func copiesBounded() async {
        await propertyCheck(
            count: 500, input: Gen.int(in: 0...1_000).array(of: 8), Gen.int(in: 0...10_000).array(of: 1...6)
        ) { genes, codes in
            let policy = Self.policy(genes)
            let decider = RetryDecider(policy: policy)
            let timeline = RequestTimeline.simulate(
                policy: policy, responses: codes.map(Self.response), seed: 1, decider: decider)
            let numbers = timeline.attempts.map(\.number)
            #expect(Set(numbers).count == numbers.count, "each copy is recorded once")
            #expect(numbers.count <= policy.attempts, "no more copies than attempts")
            #expect(Set(numbers) == Set(1...max(numbers.count, 1)).intersection(Set(numbers)))
            for attempt in timeline.attempts {
                #expect(attempt.start + attempt.duration <= timeline.elapsed, "a copy outlived the request")
                if attempt.response.outcome == .transport(.cancelled) {
                    #expect(attempt.start + attempt.duration == timeline.elapsed, "a loser is cancelled when the request ends")
                }
            }
            #expect(timeline.attempts.filter { $0.decision.action == .success }.count <= 1)
            if timeline.result.action == .success {
                #expect(timeline.attempts.last?.decision.action == .success, "the winner is the last record")
            }
            if let budget = decider.budget {
                #expect((0...budget.configuration.capacity).contains(budget.available))
            }
        }
    }
}
