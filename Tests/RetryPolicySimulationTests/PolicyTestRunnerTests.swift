import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

@Suite("The policy test runner")
struct PolicyTestRunnerTests {
    @Test("the policy test runner reports each mismatch with expected and actual")
    func runner() {
        let location = at(5)
        let suite = PolicyTestSuite(
            path: "clean.tests.yaml", policyReference: "clean.yaml",
            cases: [
                DecisionCase(name: "ok", location: location, input: DecisionInput(outcome: .status(503)),
                             expect: DecisionExpectation(action: .retry, error: "SDKError.status_5xx", delayMin: .zero, delayMax: .seconds(1), ruleLine: 23)),
                DecisionCase(name: "wrong", location: at(9), input: DecisionInput(outcome: .status(503)),
                             expect: DecisionExpectation(action: .stop, reason: .notRetryable)),
            ],
            sequences: [
                SequenceCase(name: "outage", location: at(20), responses: [.init(outcome: .status(500))],
                             expect: SequenceExpectation(result: .stop, reason: .attemptsExhausted, attempts: 3)),
            ])
        let result = PolicyTestRunner.run(suite, policy: cleanPolicy())
        #expect(result.passed == 2)
        #expect(result.failures.count == 1)
        #expect(result.failures[0].description == "policy.yaml:9:3: case 'wrong' failed: action: expected stop, got retry; reason: expected not_retryable, got none (actual: retry after 0s-1s [status_5xx])")
    }
}
