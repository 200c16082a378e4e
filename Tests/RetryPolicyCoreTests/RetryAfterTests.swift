import RetryPolicyCore
import Testing

@Suite struct RetryAfterParsingTests {
    /// 1994-11-06T08:49:37Z, the RFC's example date.
    static let rfcExample = Timestamp(secondsSince1970: 784_111_777)

    @Test("HTTP-date in all three RFC 9110 forms", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850
        "Sun Nov  6 08:49:37 1994",  // obsolete asctime
    ])
    func httpDateForms(text: String) {
        #expect(HTTPDate.parse(text) == Self.rfcExample)
        let now = Self.rfcExample + .seconds(-90)
        #expect(RetryAfterValue.parse(text, format: .http, now: now) == .seconds(90))
    }

    @Test("Delta-seconds")
    func deltaSeconds() {
        #expect(RetryAfterValue.parse("120", format: .http, now: nil) == .seconds(120))
        #expect(RetryAfterValue.parse(" 0 ", format: .http, now: nil) == .zero)
    }

    @Test("A date in the past means no wait")
    func pastDate() {
        #expect(RetryAfterValue.parse("Sun, 06 Nov 1994 08:49:37 GMT", format: .http, now: Self.rfcExample + .seconds(5)) == .zero)
    }

    @Test("A date without a known now cannot be resolved")
    func dateNeedsNow() {
        #expect(RetryAfterValue.parse("Sun, 06 Nov 1994 08:49:37 GMT", format: .http, now: nil) == nil)
    }

    @Test("Garbage, negative, fractional, overflowing and non-ASCII values are ignored", arguments: [
        "", "soon", "-5", "1.5", "100000000000000000000", "99999999999", "١٢", "12abc", "Sun, 32 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "🙂",
    ])
    func garbage(text: String) {
        #expect(RetryAfterValue.parse(text, format: .http, now: Self.rfcExample) == nil)
    }

    @Test("Vendor formats: milliseconds and Unix reset time")
    func vendorFormats() {
        #expect(RetryAfterValue.parse("1500", format: .milliseconds, now: nil) == .milliseconds(1500))
        #expect(RetryAfterValue.parse("784111787", format: .unixSeconds, now: Self.rfcExample) == .seconds(10))
        #expect(RetryAfterValue.parse("784111000", format: .unixSeconds, now: Self.rfcExample) == .zero)
    }

    @Test("Header names are case-insensitive")
    func caseInsensitive() {
        let headers: ResponseHeaders = ["retry-AFTER": "3"]
        #expect(RetryAfterPolicy().serverDelay(in: headers, now: nil) == .seconds(3))
    }

    @Test("The first configured header present with a valid value wins")
    func headerOrder() {
        let policy = RetryAfterPolicy(headers: [
            .init(name: "retry-after-ms", format: .milliseconds), .retryAfter,
        ])
        #expect(policy.serverDelay(in: ["Retry-After": "3", "retry-after-ms": "250"], now: nil) == .milliseconds(250))
        #expect(policy.serverDelay(in: ["Retry-After": "3", "retry-after-ms": "junk"], now: nil) == .seconds(3))
    }
}

@Suite struct RetryAfterDecisionTests {
    func policy(cap: Duration?, aboveCap: RetryAfterPolicy.AboveCap = .stop, combine: RetryAfterPolicy.Combine = .server) -> Policy {
        var policy = SeedPolicies.tmdb
        policy.retryAfter = RetryAfterPolicy(honor: true, cap: cap, aboveCap: aboveCap, combine: combine)
        return policy
    }

    @Test("Above the cap, stop (default) with retry_after_too_long, carrying the server's value")
    func aboveCapStops() {
        let decision = decide(policy(cap: .seconds(60)), .status(429, retryAfter: "3600"))
        #expect(decision.stopReason == .retryAfterTooLong)
        #expect(decision.error?.retryAfter == .seconds(3600))
        #expect(decision.error?.kind == .status429)
    }

    @Test("Above the cap, clamp waits the cap")
    func aboveCapClamps() {
        #expect(decide(policy(cap: .seconds(60), aboveCap: .clamp), .status(429, retryAfter: "3600")).delay == .seconds(60))
    }

    @Test("Above the cap, ignore falls back to backoff")
    func aboveCapIgnored() {
        let decision = decide(policy(cap: .seconds(60), aboveCap: .ignore), .status(429, retryAfter: "3600"))
        #expect(decision.delayBounds == .zero...(.seconds(1)))
        #expect(!decision.serverDirected)
    }

    @Test("Combine max takes the larger of the server's value and the backoff")
    func combineMax() {
        let decision = decide(policy(cap: .seconds(60), combine: .max), .status(503, retryAfter: "2"), attempt: 3)
        #expect(decision.delayBounds == .seconds(2)...(.seconds(4)))
        let delay = decision.delay ?? .zero
        #expect(delay >= .seconds(2) && delay <= .seconds(4))
    }

    @Test("Garbage Retry-After falls back to backoff")
    func garbageFallsBack() {
        let decision = decide(policy(cap: .seconds(60)), .status(503, retryAfter: "-7"))
        #expect(decision.delayBounds == .zero...(.seconds(1)))
        #expect(decision.error == nil)
    }

    @Test("A rule can refuse to honour Retry-After")
    func ruleOverride() {
        var policy = policy(cap: .seconds(60))
        policy.rules[0].honorRetryAfter = false
        #expect(decide(policy, .status(429, retryAfter: "5")).delayBounds == .zero...(.seconds(1)))
    }

    @Test("HTTP-date Retry-After resolves against the decision's now")
    func httpDate() {
        let now = Timestamp(secondsSince1970: 784_111_777 - 4)
        let decision = decide(policy(cap: .seconds(60)), .status(503, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT"), now: now)
        #expect(decision.delay == .seconds(4))
    }
}
