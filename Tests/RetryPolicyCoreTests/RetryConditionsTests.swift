import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@Suite struct RetryConditionsTests {
    func policy(total: Duration?) -> Policy {
        var policy = TestPolicies.mobileClient
        policy.timeouts = TimeoutBudget(perAttempt: .seconds(2), total: total)
        policy.endpoints = ["search": TimeoutBudget(total: .seconds(1))]
        return policy
    }

    @Test("No retry whose delay would end at or past the total deadline")
    func deadline() {
        // Retry 2 waits 1 s.
        #expect(decide(policy(total: .seconds(5)), .status(503), attempt: 2, elapsed: .milliseconds(3999)).isRetry)
        let late = decide(policy(total: .seconds(5)), .status(503), attempt: 2, elapsed: .seconds(4))
        #expect(late.stopReason == .deadlineExceeded)
        #expect(late.error?.kind == .status5xx)
    }

    @Test("Per-endpoint deadlines override the policy's")
    func endpointDeadline() {
        let decider = RetryDecider(policy: policy(total: .seconds(30)))
        let decision = decider.decide(DecisionInput(outcome: .status(503), attempt: 2, elapsed: .milliseconds(100), endpoint: "search"))
        #expect(decision.stopReason == .deadlineExceeded)
        #expect(decider.decide(DecisionInput(outcome: .status(503), attempt: 2, elapsed: .milliseconds(100))).isRetry)
    }

    @Test("Checks apply in order: attempts before idempotency")
    func checkOrder() {
        #expect(decide(TestPolicies.mobileClient, .status(503), attempt: 4, method: .post).stopReason == .attemptsExhausted)
    }

    @Test("Honouring idempotent requests can be switched off")
    func idempotencyFlag() {
        var policy = TestPolicies.mobileClient
        policy.idempotency.honorIdempotentRequests = false
        let decision = RetryDecider(policy: policy).decide(
            DecisionInput(outcome: .status(503), method: .post, markedIdempotent: true))
        #expect(decision.stopReason == .notIdempotent)
    }

    @Test("401: refresh credentials and retry once (seed 002)")
    func refreshOnce() {
        var policy = TestPolicies.mobileClient
        policy.rules.insert(Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true), at: 0)
        let decider = RetryDecider(policy: policy)
        var input = DecisionInput(outcome: .status(401))
        let first = decider.decide(input)
        #expect(first.isRetry)
        #expect(first.refreshCredentials)
        // The retry refreshed; the second attempt is judged with that count.
        input.attempt = 2
        input.elapsed = .seconds(1)
        input.previousDelay = first.delay
        input.credentialRefreshes = 1
        let second = decider.decide(input)
        #expect(second.stopReason == .notRetryable)
        #expect(second.error?.kind == .unauthorized)
    }

    @Test("Rules match in order: the first match wins")
    func firstMatchWins() {
        var policy = TestPolicies.mobileClient
        policy.rules.insert(Rule(statuses: [.code(503)], error: "maintenance", action: .stop), at: 0)
        let decision = decide(policy, .status(503))
        #expect(decision.error?.kind == "maintenance")
        #expect(decision.ruleIndex == 0)
        #expect(decide(policy, .status(502)).ruleIndex == 2)
    }

    @Test("Method-restricted rules only match their methods")
    func methodRestricted() {
        var policy = TestPolicies.tmdb()
        policy.rules.insert(Rule(statuses: [.statusClass(5)], methods: [.get], error: .status5xx, action: .retry), at: 0)
        policy.rules.insert(Rule(statuses: [.statusClass(5)], methods: [.put], error: "put_failed", action: .stop), at: 1)
        #expect(decide(policy, .status(503), method: .get).ruleIndex == 0)
        #expect(decide(policy, .status(503), method: .put).error?.kind == "put_failed")
        #expect(decide(policy, .status(503), method: .delete).ruleIndex == 3)
    }

    @Test("Unmatched inputs fall to the default; an unmatched 2xx is success")
    func defaults() {
        let policy = TestPolicies.tmdb()
        #expect(decide(policy, .status(302)).ruleIndex == nil)
        #expect(decide(policy, .status(302)).error == SDKError(kind: .internalError, statusCode: 302))
        #expect(decide(policy, .status(299)).action == .success)
        var retryByDefault = policy
        retryByDefault.defaultRule = DefaultRule(error: .internalError, action: .retry)
        #expect(decide(retryByDefault, .status(302)).isRetry)
    }

    @Test("A success rule turns a status into success")
    func successRule() {
        var policy = TestPolicies.tmdb()
        policy.rules.insert(Rule(statuses: [.code(404)], action: .success), at: 0)
        #expect(decide(policy, .status(404)).action == .success)
    }

    @Test("Status codes outside 100-599 never match a rule and never crash", arguments: [0, 99, 600, 99999, -1, Int.max])
    func outOfRangeStatus(status: Int) {
        let decision = decide(TestPolicies.tmdb(), .status(status))
        #expect(decision.ruleIndex == nil)
        #expect(decision.stopReason == .notRetryable)
    }
}

@Suite struct SDKErrorTests {
    @Test func messages() {
        #expect(SDKError(kind: .status5xx, statusCode: 503).message == "status_5xx: HTTP 503")
        #expect(SDKError(kind: .timeout, transport: .timeout).message == "timeout: transport failure timeout")
        #expect(SDKError(kind: .status429, statusCode: 429, retryAfter: .seconds(90)).message
            == "status_429: HTTP 429, server asked to retry after 1m30s")
    }

    @Test func kindsAreExtensible() {
        let custom: SDKError.Kind = "quota_exceeded"
        #expect(custom.rawValue == "quota_exceeded")
        #expect(SDKError.Kind.standard.contains(.status429))
        #expect(!SDKError.Kind.standard.contains(custom))
    }
}
