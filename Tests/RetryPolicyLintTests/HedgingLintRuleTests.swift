import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyLint
import Testing

private func findings(_ policy: Policy) -> [LintFinding] {
    PolicyLinter().check(policy: policy, context: LintContext(file: "policy.yaml"))
}

private func hedged(_ hedging: HedgingPolicy, _ change: (inout Policy) -> Void = { _ in }) -> Policy {
    var policy = cleanPolicy()
    policy.hedging = hedging
    policy.keyLocations["hedging"] = at(40)
    policy.keyLocations["hedging.delay"] = at(41)
    change(&policy)
    return policy
}

@Suite("Lint rules: hedging")
struct HedgingLintRuleTests {
    @Test("a hedging section with a short delay over idempotent methods is clean")
    func clean() {
        #expect(findings(hedged(HedgingPolicy(delay: .milliseconds(200)))).isEmpty)
    }

    @Test("RP122: hedging.methods names POST, at the key")
    func nonIdempotent() throws {
        let policy = hedged(HedgingPolicy(delay: .milliseconds(200), methods: [.get, .post])) {
            $0.idempotency.retryableMethods.insert(.post)
            $0.keyLocations["hedging.methods"] = at(42)
        }
        let found = findings(policy).filter { $0.id == "RP122" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 42)
        #expect(found[0].severity == .warning)
        #expect(found[0].message == "hedging sends copies of POST, which is not idempotent: the server may perform it more than once")
    }

    @Test("RP122 by default: the retryable methods RFC 9110 does not call idempotent are not hedged, so it is silent")
    func defaultMethodsAreSafe() {
        let policy = hedged(HedgingPolicy(delay: .milliseconds(200))) { $0.idempotency.retryableMethods = [.get, .post, .patch] }
        #expect(!findings(policy).contains { $0.id == "RP122" })
        #expect(policy.hedging?.hedgedMethods(policy.idempotency) == [.get])
    }

    @Test("RP123: a delay at least the per-attempt timeout, and at least the total deadline of an endpoint")
    func delayBeyondTimeout() throws {
        var found = findings(hedged(HedgingPolicy(delay: .seconds(5)))).filter { $0.id == "RP123" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 41)
        #expect(found[0].message == "hedging.delay 5s is at least the per-attempt timeout 5s: every copy times out before the next starts, so copies never overlap")
        let endpoint = hedged(HedgingPolicy(delay: .seconds(2))) {
            $0.endpoints["search"] = TimeoutBudget(perAttempt: .seconds(1), total: .seconds(2))
        }
        found = findings(endpoint).filter { $0.id == "RP123" }
        try #require(found.count == 1)
        #expect(found[0].message == "hedging.delay 2s is at least the total deadline 2s for endpoint 'search': no second copy ever starts")
        #expect(!findings(hedged(HedgingPolicy(delay: .milliseconds(4999)))).contains { $0.id == "RP123" })
    }

    @Test("RP124: attempts 1, a hedged method the policy never retries, or nothing to hedge")
    func neverHedges() throws {
        var found = findings(hedged(HedgingPolicy(delay: .milliseconds(200))) { $0.attempts = 1 }).filter { $0.id == "RP124" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 40)
        #expect(found[0].message == "hedging never sends a second copy: attempts is 1")
        found = findings(hedged(HedgingPolicy(delay: .milliseconds(200), methods: [.get, .trace]))).filter { $0.id == "RP124" }
        try #require(found.count == 1)
        #expect(found[0].message == "hedging lists TRACE, which idempotency.methods does not retry: its requests never get a second copy")
        let nothing = hedged(HedgingPolicy(delay: .milliseconds(200))) {
            $0.idempotency.retryableMethods = [.post]
            $0.idempotency.honorIdempotentRequests = false
        }
        found = findings(nothing).filter { $0.id == "RP124" }
        try #require(found.count == 1)
        #expect(found[0].message.hasPrefix("hedging applies to no request"))
    }
}
