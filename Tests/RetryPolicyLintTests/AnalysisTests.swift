import RetryPolicyCore
import Testing

@testable import RetryPolicyLint

@Suite("Diff, table, simulation and policy tests")
struct AnalysisTests {
    @Test("a policy never differs from itself; the comparison covers the whole input space")
    func diffSelf() {
        let comparison = PolicyDiff.compare(cleanPolicy(), cleanPolicy())
        #expect(comparison.isIdentical)
        #expect(comparison.comparedInputs == (500 + 10) * 3 * 9)
    }

    @Test("differences are grouped into status ranges and attempt ranges")
    func diffGrouping() {
        var other = cleanPolicy()
        other.rules[2].action = .stop  // 5xx no longer retried
        let comparison = PolicyDiff.compare(cleanPolicy(), other, methods: [.get])
        let texts = comparison.differences.map(\.inputText)
        #expect(texts == ["status 500, 502-599, attempt 1", "status 500, 502-599, attempt 2", "status 500, 502-599, attempt 3"])
        #expect(comparison.differences[0].left.description == "retry after 0s-1s [status_5xx]")
        #expect(comparison.differences[0].right.description == "stop: status_5xx (not_retryable)")
        #expect(comparison.differences[2].left.description == "stop: status_5xx (attempts_exhausted)")
    }

    @Test("the error table follows the seed's shape: one row per range with the same decision")
    func table() {
        let policy = Policy(
            name: "ios", platform: "ios", attempts: 1,
            retryAfter: RetryAfterPolicy(cap: .seconds(60), cooldown: .wait),
            rules: [
                rule([.code(204)], error: .noFill, action: .stop, line: 10),
                rule([.code(429)], error: .status429, action: .stop, line: 11),
                rule([.statusClass(5)], error: .status5xx, action: .stop, line: 12),
                rule(transports: [.timeout], error: .timeout, action: .stop, line: 13),
                rule(transports: [.dns, .tls], error: .networkError, action: .stop, line: 14),
            ],
            defaultRule: DefaultRule(error: .networkError, action: .stop, location: at(16)))
        let table = ErrorTable(policy: policy)
        #expect(table.platforms == ["ios"])
        let markdown = table.markdown
        #expect(markdown.hasPrefix("| HTTP Status | SDK Error | Retry? | Explanation |\n|-------------|-----------|--------|-------------|\n"))
        #expect(markdown.contains("| 204 | `SDKError.noFill` | No | No Content |"))
        #expect(markdown.contains("| 500-599 | `SDKError.status_5xx` | No | Server error; respect Retry-After (cap 1m) |"))
        #expect(markdown.contains("| Timeout | `SDKError.timeout` | No | Request exceeded timeout budget |"))
        // Transport failures with the same decision share a row, whether a rule or the default decides them.
        #expect(markdown.contains("| Connection lost/Offline/DNS/SSL/TLS/Connection refused/Invalid URL/Decoding/Unknown | `SDKError.networkError` | No | Network connectivity failure |"))
        #expect(markdown.contains("| 300-428 | `SDKError.networkError` | No | Redirection / client error |"))
    }

    @Test("a scripted timeline follows the decider: server delay, jitter bounds, final success")
    func timeline() throws {
        let timeline = RequestTimeline.simulate(
            policy: cleanPolicy(),
            responses: try ScriptedResponse.parseList("503,429; Retry-After: 2,200").get(),
            seed: 7)
        #expect(timeline.attempts.count == 3)
        #expect(timeline.attempts[0].decision.delay == .zero ... .seconds(1))
        #expect(timeline.attempts[1].delay == .seconds(2))
        #expect(timeline.attempts[1].start == timeline.attempts[0].delay!)
        #expect(timeline.result.action == .success)
        #expect(timeline.elapsed == timeline.attempts[0].delay! + .seconds(2))
    }

    @Test("a timeout lasts per_attempt, so the deadline ends the request")
    func timelineDeadline() throws {
        var policy = cleanPolicy()
        policy.attempts = 10
        let timeline = RequestTimeline.simulate(policy: policy, responses: [try ScriptedResponse.parse("timeout").get()], seed: 1)
        #expect(timeline.result.reason == .deadlineExceeded)
        #expect(timeline.elapsed == .seconds(30), "the attempt running into the total deadline is cut there")
        #expect(timeline.attempts.last!.duration < .seconds(5))
        #expect(timeline.attempts.dropLast().allSatisfy { $0.duration == .seconds(5) })
    }

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

    @Test("simulate: a breaker that opens during a request ends it with circuit_open, without sending the next attempt")
    func timelineWithBreaker() throws {
        var policy = cleanPolicy().withBreaker(CircuitBreakerConfiguration(consecutiveFailures: 2, error: .networkError))
        policy.attempts = 4
        let timeline = RequestTimeline.simulate(policy: policy, responses: [try ScriptedResponse.parse("503").get()], seed: 1)
        #expect(timeline.attempts.count == 2)
        #expect(timeline.result.reason == .circuitOpen)
        #expect(timeline.result.error == .networkError)
        let unbroken = RequestTimeline.simulate(
            policy: policy.withBreaker(nil), responses: [try ScriptedResponse.parse("503").get()], seed: 1)
        #expect(unbroken.attempts.count == 4)
    }

    @Test("a shared breaker cuts the load during an outage and records its open and half-open periods")
    func stormWithBreaker() throws {
        var policy = cleanPolicy().withBreaker(
            CircuitBreakerConfiguration(minimumCalls: 10, breakDuration: .seconds(5), halfOpenProbes: 2))
        policy.attempts = 4
        policy.timeouts = TimeoutBudget()
        let response = try ScriptedResponse.parse("503").get()
        let configuration = OutageStorm.Configuration(
            clients: 200, outage: .seconds(20), outageResponse: response, spread: .seconds(40), shared: true)
        let broken = OutageStorm.run(policy: policy, configuration: configuration)
        let plain = OutageStorm.run(policy: policy.withBreaker(nil), configuration: configuration)
        #expect(broken.outageRequests * 5 < plain.outageRequests, "\(broken.outageRequests) vs \(plain.outageRequests)")
        #expect((broken.failures[.circuitOpen] ?? 0) > 0)
        #expect(plain.breakerPeriods.isEmpty)
        let states = broken.breakerPeriods.map(\.state)
        #expect(states.first == .open)
        #expect(states.contains(.halfOpen))
        // Periods follow each other: each ends where the next starts.
        for (earlier, later) in zip(broken.breakerPeriods, broken.breakerPeriods.dropFirst()) {
            #expect(earlier.end != nil && earlier.end! <= later.start)
        }
        let svg = broken.svg(title: "breaker")
        #expect(svg.contains("breaker open from "))
        #expect(svg.contains("breaker half-open from"))
    }

    @Test("a storm without jitter is synchronised; a shared budget cuts the load")
    func storm() throws {
        var policy = cleanPolicy().withBreaker(nil)
        policy.attempts = 6
        policy.timeouts = TimeoutBudget()
        policy.backoff.jitter = .none
        let response = try ScriptedResponse.parse("503").get()
        let plain = OutageStorm.run(policy: policy, configuration: .init(clients: 100, outage: .seconds(60), outageResponse: response))
        #expect(plain.totalRequests == 600)
        #expect(plain.peak == 100)
        #expect(plain.failures[.attemptsExhausted] == 100)
        policy.budget = RetryBudgetConfiguration(capacity: 50, retryCost: 5)
        let budgeted = OutageStorm.run(policy: policy, configuration: .init(clients: 100, outage: .seconds(60), outageResponse: response, shared: true))
        #expect(budgeted.totalRequests == 110, "100 first attempts + 10 retries the budget pays for")
        #expect(budgeted.failures[.budgetExhausted] == 100, "90 stop at once, the 10 that retried stop on their next failure")
        let recovered = OutageStorm.run(policy: policy, configuration: .init(clients: 10, outage: .seconds(2), outageResponse: response))
        #expect(recovered.succeeded == 10)
    }

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
