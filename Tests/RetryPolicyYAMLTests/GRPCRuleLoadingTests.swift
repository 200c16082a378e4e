import RetryPolicyCore
import RetryPolicyYAML
import Testing

@Suite("grpc rules: loading and writing")
struct GRPCRuleLoadingTests {
    static let file = """
        version: 1
        name: channel
        attempts: 3
        rules:
          - {grpc: [UNAVAILABLE, RESOURCE_EXHAUSTED], error: status_5xx, action: retry}
          - {grpc: DEADLINE_EXCEEDED, methods: [POST], error: timeout, action: stop}
          - {status: 503, grpc: INTERNAL, error: status_5xx, action: retry}
        default: {error: internal_error, action: stop}
        """

    @Test("A grpc key takes one name or a list, beside status and methods")
    func loads() throws {
        let policy = try PolicyLoader().loadPolicy(yaml: Self.file, path: "channel.yaml")
        #expect(policy.rules.map(\.grpc) == [[.unavailable, .resourceExhausted], [.deadlineExceeded], [.internal]])
        #expect(policy.rules[1].methods == [.post])
        #expect(policy.rules[2].statuses == [.code(503)])
        let decider = RetryDecider(policy: policy)
        #expect(decider.decide(DecisionInput(outcome: .grpc(.resourceExhausted))).isRetry)
        #expect(decider.decide(DecisionInput(outcome: .grpc(.internal))).ruleIndex == 2)
        #expect(decider.decide(DecisionInput(outcome: .status(503))).ruleIndex == 2)
    }

    @Test("The writer writes grpc rules by name, in code order, and they load back equal")
    func writes() throws {
        let policy = try PolicyLoader().loadPolicy(yaml: Self.file, path: "channel.yaml")
        let text = try PolicyWriter.yaml(policy)
        #expect(text.contains("{grpc: [RESOURCE_EXHAUSTED, UNAVAILABLE], error: status_5xx, action: retry}"))
        #expect(text.contains("{status: [503], grpc: [INTERNAL], error: status_5xx, action: retry}"))
        let again = try PolicyLoader().loadPolicy(yaml: text, path: "written.yaml")
        #expect(again.rules.map(\.grpc) == policy.rules.map(\.grpc))
        #expect(again.rules.map(\.methods) == policy.rules.map(\.methods))
    }

    @Test("A rule with only grpc is complete; the validator says so for a rule built in code too")
    func completeness() throws {
        var policy = Policy(name: "api", attempts: 2)
        policy.rules = [Rule(grpc: [.unavailable], error: .status5xx, action: .retry)]
        #expect(policy.problems.isEmpty)
        policy.rules = [Rule(error: .status5xx, action: .retry)]
        #expect(policy.problems.map(\.description) == [
            "rules[0]: expected 'status', 'transport', 'condition' or 'grpc', found none [RP023] (a rule without conditions matches nothing; use 'default' for unmatched inputs)"
        ])
    }
}
