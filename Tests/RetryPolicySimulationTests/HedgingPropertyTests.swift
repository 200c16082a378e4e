import PropertyBased
import RetryPolicyCore
import RetryPolicySimulation
import RetryPolicyTestSupport
import Testing

/// Invariants of hedged requests, over generated policies and servers, on
/// the simulator (which the agreement test ties to the executor).
@Suite("Hedging invariants")
struct HedgingPropertyTests {
    /// A traffic policy that always hedges.
    static func policy(_ genes: [Int]) -> Policy {
        var generator = PolicyGenerator.traffic
        generator.hedging = .always
        return generator.policy(seed: PolicyGenerator.seed(genes), name: "hedged")
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
                // A ratio budget holds its reserve plus the request's deposit,
                // and is short of the deposit once it expires before the
                // withdrawals it paid for; a bucket stays within its capacity.
                let deposit = budget.configuration.ratio?.permille ?? 0
                #expect((-deposit...(budget.configuration.capacity + deposit)).contains(budget.available), "\(budget.configuration)")
            }
        }
    }
}
