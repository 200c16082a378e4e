import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

@Suite("Scripted responses")
struct ScriptedResponseTests {
    @Test("scripted responses are parsed strictly")
    func scripted() {
        if case .failure(let error) = ScriptedResponse.parse("503; Retry After: 2") {
            #expect(error.reason == "after ';', expected a header as curl writes it, 'Name: value', found 'Retry After: 2': the name holds a space or tab at column 6")
        } else {
            Issue.record("accepted a space in a header name")
        }
        #expect((try? ScriptedResponse.parse("429; Retry-After: 2").get())?.description == "429; Retry-After: 2")
        #expect((try? ScriptedResponse.parse("429;Retry-After:2").get())?.description == "429; Retry-After: 2")
        #expect((try? ScriptedResponse.parse("connection_lost").get())?.outcome == .transport(.connectionLost))
        for bad in ["", "99", "600", "wifi", "503; Retry-After", "503; : 2", "503; Retry After: 2", "503:retry-after", "timeout; X: 1", "timeout:x=1"] {
            if case .success = ScriptedResponse.parse(bad) { Issue.record("accepted '\(bad)'") }
        }
    }

    @Test("a condition the caller's code reports is written 'condition NAME'")
    func conditions() throws {
        let parsed = try ScriptedResponse.parse("condition malformed_body").get()
        #expect(parsed.outcome == .condition("malformed_body"))
        #expect(parsed.description == "condition malformed_body")
        let list = try ScriptedResponse.parseList("503,condition malformed_body,200").get()
        #expect(list.map(\.outcome) == [.status(503), .condition("malformed_body"), .status(200)])
        for bad in ["condition", "condition Malformed", "condition malformed_body; Retry-After: 2"] {
            if case .success = ScriptedResponse.parse(bad) { Issue.record("accepted '\(bad)'") }
        }
    }

    @Test("a sequence naming a condition the policy does not declare fails, rather than quietly taking the default")
    func undeclaredConditionsInSequences() {
        var policy = cleanPolicy()
        policy.conditions = ["malformed_body"]
        policy.rules.append(Rule(conditions: ["malformed_body"], error: .status5xx, action: .retry))
        let sequence = { (name: AttemptCondition) in
            SequenceCase(name: "\(name)", location: at(3), responses: [.init(outcome: .condition(name)), .init(outcome: .status(200))],
                         expect: SequenceExpectation(result: .success, attempts: 2))
        }
        let suite = PolicyTestSuite(path: "p.tests.yaml", policyReference: "p.yaml", cases: [],
                                    sequences: [sequence("malformed_body"), sequence("malformed_bdy")])
        let result = PolicyTestRunner.run(suite, policy: policy)
        #expect(result.passed == 1)
        #expect(result.failures.map(\.name) == ["malformed_bdy"])
    }

    @Test("the earlier header form is refused with the same response written as curl writes headers")
    func scriptedEarlierForm() throws {
        func reason(_ text: String) -> String? {
            if case .failure(let error) = ScriptedResponse.parse(text) { return error.reason }
            return nil
        }
        #expect(reason("503:retry-after-ms=500:retry-after=1")
            == "the earlier header form is no longer read; write '503; retry-after-ms: 500; retry-after: 1', headers as curl writes them, each after ';'")
        #expect(reason("429:retry-after")?.contains("write '429; Retry-After: 2'") == true)
        let curl = try ScriptedResponse.parse("503; retry-after-ms: 500; retry-after: 1").get()
        #expect(curl.description == "503; retry-after-ms: 500; retry-after: 1")
        if case .success = ScriptedResponse.parseList("503,429:retry-after=2,200") { Issue.record("accepted the earlier form in a list") }
        #expect(ScriptedResponse.usesDeprecatedHeaderSyntax("429:retry-after=2"))
        for current in ["429; Retry-After: 2", "429", "timeout", "429; Date: Wed, 21 Oct 2015 07:28:00 GMT"] {
            #expect(!ScriptedResponse.usesDeprecatedHeaderSyntax(current), "\(current)")
        }
    }

    @Test("a comma inside a header value stays in the value; a status or transport class after a comma starts the next response")
    func scriptedList() throws {
        let list = try ScriptedResponse.parseList("503,429; Retry-After: Wed, 21 Oct 2015 07:28:00 GMT,timeout, 200").get()
        #expect(list.map(\.description) == ["503", "429; Retry-After: Wed, 21 Oct 2015 07:28:00 GMT", "timeout", "200"])
        let headers = try ScriptedResponse.parseList("429; Retry-After: 2; X-Reason: a, b,200").get()
        #expect(headers.map(\.description) == ["429; Retry-After: 2; X-Reason: a, b", "200"])
        // Without headers a comma always separates, so a stray word is an error, not a value.
        if case .success = ScriptedResponse.parseList("503,soon,200") { Issue.record("accepted a stray word") }
    }
}
