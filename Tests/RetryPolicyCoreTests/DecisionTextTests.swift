import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

/// The text forms of one decision, as every command and timeline writes
/// them (the CLI tests pin whole outputs; these pin the forms).
@Suite("Decision text")
struct DecisionTextTests {
    let policy = cleanPolicy()

    func decide(_ outcome: AttemptOutcome, attempt: Int = 1) -> (Decision, DecisionOutline, DecisionInput) {
        let input = DecisionInput(outcome: outcome, attempt: attempt)
        var generator = SplitMix64(seed: 0)
        let decision = RetryDecider(policy: policy).decide(input, using: &generator)
        return (decision, DecisionOutline(decision, policy: policy), input)
    }

    @Test("a retry: its bounds, the drawn delay, the deciding rule")
    func retry() {
        let (decision, outline, input) = decide(.status(503))
        #expect(outline.description == "retry after 0s-1s [status_5xx]")
        #expect(DecisionText.timelineRow(outline, drawn: .milliseconds(390), hedged: false) == "retry in 390ms (drawn from 0s-1s) [status_5xx]")
        #expect(DecisionText.timelineRow(outline, drawn: .milliseconds(390), hedged: true) == "next copy now [status_5xx]")
        #expect(DecisionText.step(decision).hasSuffix(", rule at policy.yaml:23:3"))
        #expect(DecisionText.sentence(outline, input: input, policy: policy)
            == "Retry after 0s-1s (full jitter): HTTP 503 matches the rule at policy.yaml:23, which retries it as status_5xx; this was attempt 1 of 3.")
    }

    @Test("a stop: the error kind and the reason, in every form")
    func stop() {
        let (decision, outline, input) = decide(.status(501))
        #expect(outline.description == "stop: status_5xx (not_retryable)")
        #expect(DecisionText.timelineRow(outline, drawn: nil, hedged: false) == "stop: status_5xx (not_retryable)")
        #expect(DecisionText.step(decision) == "stop: status_5xx (not_retryable), rule at policy.yaml:22:3")
        #expect(DecisionText.sentence(outline, input: input, policy: policy)
            == "Stop with status_5xx (not_retryable): HTTP 501 matches the rule at policy.yaml:22, which does not retry it.")
    }

    @Test("the default decides: the sentence does not call it a rule")
    func byDefault() {
        let (decision, outline, input) = decide(.transport(.dns))
        #expect(DecisionText.step(decision) == "stop: network_error (not_retryable), rule at policy.yaml:28:3")
        #expect(DecisionText.sentence(outline, input: input, policy: policy)
            == "Stop with network_error (not_retryable): no rule matches transport failure dns, so the default at policy.yaml:28 decides, and it does not retry it.")
    }

    @Test("JSON: the outline carries its rule, the signature does not")
    func json() {
        let (_, outline, _) = decide(.status(503))
        #expect(DecisionJSON.value(outline).rendered(pretty: false)
            == #"{"action":"retry","error":"status_5xx","reason":null,"delay_ms":{"min":0,"max":1000},"rule":"policy.yaml:23"}"#)
        #expect(DecisionJSON.value(outline.signature).rendered(pretty: false)
            == #"{"action":"retry","error":"status_5xx","reason":null,"delay_ms":{"min":0,"max":1000}}"#)
    }
}
