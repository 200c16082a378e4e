import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicyLint

private func findings(_ policy: Policy, parity: [String: Policy] = [:]) -> [LintFinding] {
    PolicyLinter().check(policy: policy, context: LintContext(file: "policy.yaml", parityPolicies: parity))
}

private func ids(_ policy: Policy) -> [String] { findings(policy).map(\.id) }

@Suite("Lint rules")
struct LintRuleTests {
    @Test("the baseline policy is clean, so every positive test below isolates one rule")
    func baselineIsClean() {
        #expect(findings(cleanPolicy()).isEmpty)
    }

    @Test("RP101 reports a rule that earlier rules shadow, naming them")
    func shadowedRule() throws {
        var policy = cleanPolicy()
        policy.rules.insert(rule([.code(503)], action: .stop, line: 26), at: 3)  // after 5xx at line 23
        let found = findings(policy).filter { $0.id == "RP101" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 26)
        #expect(found[0].message.contains("rule at line 26 can never match: rule at line 23 already matches every input it matches"))
    }

    @Test("RP101 is silent when the specific rule comes first or a method restriction leaves inputs to it")
    func shadowedRuleNegative() {
        var policy = cleanPolicy()
        policy.rules.insert(rule([.code(503)], action: .stop, line: 21), at: 0)
        #expect(!ids(policy).contains("RP101"))
        var restricted = cleanPolicy()
        restricted.rules[2].methods = [.get]
        restricted.rules.insert(rule([.code(503)], action: .stop, line: 26), at: 3)
        #expect(!ids(restricted).contains("RP101"))
    }

    @Test("RP102 lists the statuses and transports nothing covers")
    func uncoveredInputs() throws {
        var policy = cleanPolicy()
        policy.defaultRule = nil
        let found = findings(policy).filter { $0.id == "RP102" }
        try #require(found.count == 1)
        #expect(found[0].message.contains("status 100-199, 300-399"))
        #expect(found[0].message.contains("transport offline, dns, tls, connection_refused, cancelled, invalid_url, decoding, unknown"))
        #expect(!found[0].message.contains("200"))
    }

    @Test("RP102 is silent with a default")
    func uncoveredInputsNegative() {
        #expect(!ids(cleanPolicy()).contains("RP102"))
    }

    @Test("RP103 names the attempt that can never start and the numbers")
    func unreachableAttempt() throws {
        var policy = cleanPolicy()
        policy.attempts = 4
        policy.timeouts = TimeoutBudget(perAttempt: .seconds(10), total: .seconds(30), location: at(15))
        let found = findings(policy).filter { $0.id == "RP103" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 15)
        #expect(found[0].message.contains("attempt 4 of 4 can never start"))
        #expect(found[0].message.contains("attempts 1-3 each time out at per_attempt 10s (30s)"))
        #expect(found[0].message.contains("1s + 2s + 4s (7s) bring it to 37s"))
        #expect(found[0].message.contains("total deadline 30s"))
    }

    @Test("RP103 checks per-endpoint budgets too, and is silent when the schedule fits")
    func unreachableAttemptEndpoints() throws {
        var policy = cleanPolicy()
        #expect(!ids(policy).contains("RP103"))  // 5+1+5+2 = 13s < 30s
        policy.endpoints = ["main_banner": TimeoutBudget(perAttempt: .seconds(5), total: .seconds(5), location: at(40))]
        let found = findings(policy).filter { $0.id == "RP103" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 40)
        #expect(found[0].message.hasPrefix("for endpoint main_banner, in the worst case attempt 2 of 3 can never start"))
    }

    @Test("RP104 reports backoff.max below initial")
    func maxBelowInitial() throws {
        var policy = cleanPolicy()
        policy.backoff.max = .milliseconds(500)
        let found = findings(policy).filter { $0.id == "RP104" }
        try #require(found.count == 1)
        #expect(found[0].severity == .error)
        #expect(found[0].message.contains("backoff.max 500ms is below backoff.initial 1s"))
    }

    @Test("RP104 is silent when max equals initial")
    func maxBelowInitialNegative() {
        var policy = cleanPolicy()
        policy.backoff.max = .seconds(1)
        #expect(!ids(policy).contains("RP104"))
    }

    @Test("RP105 reports a multiplier below 1 with the shrinking delays")
    func shrinkingBackoff() throws {
        var policy = cleanPolicy()
        policy.backoff.growth = .exponential(multiplier: 0.5)
        let found = findings(policy).filter { $0.id == "RP105" }
        try #require(found.count == 1)
        #expect(found[0].message.contains("multiplier 0.5 is below 1: the delay shrinks from 1s before retry 1 to 500ms before retry 2"))
    }

    @Test("RP105 is silent for a constant backoff")
    func shrinkingBackoffNegative() {
        var policy = cleanPolicy()
        policy.backoff.growth = .exponential(multiplier: 1)
        #expect(!ids(policy).contains("RP105"))
    }

    @Test("RP106 reports Retry-After honoured without a cap")
    func uncappedRetryAfter() throws {
        var policy = cleanPolicy()
        policy.retryAfter.cap = nil
        let found = findings(policy).filter { $0.id == "RP106" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 10)
        #expect(found[0].message.contains("Retry-After is honoured without a cap"))
    }

    @Test("RP106 is silent when the header is not honoured, or in a single-attempt policy without cooldown")
    func uncappedRetryAfterNegative() {
        var ignored = cleanPolicy()
        ignored.retryAfter.cap = nil
        ignored.retryAfter.honor = false
        #expect(!ids(ignored).contains("RP106"))
        var single = cleanPolicy()
        single.retryAfter.cap = nil
        single.attempts = 1
        #expect(!ids(single).contains("RP106"))
    }

    @Test("RP107 reports retries without jitter, with the synchronised delays")
    func missingJitter() throws {
        var policy = cleanPolicy()
        policy.backoff.jitter = .none
        let found = findings(policy).filter { $0.id == "RP107" }
        try #require(found.count == 1)
        #expect(found[0].message.contains("every client waits exactly 1s, 2s"))
    }

    @Test("RP107 is silent with jitter or without retries")
    func missingJitterNegative() {
        var single = cleanPolicy()
        single.backoff.jitter = .none
        single.attempts = 1
        #expect(!ids(single).contains("RP107"))
        var equal = cleanPolicy()
        equal.backoff.jitter = .equal
        #expect(!ids(equal).contains("RP107"))
    }

    @Test("RP108 reports retried 4xx other than 408, 425, 429, as ranges")
    func retriedClientError() throws {
        var policy = cleanPolicy()
        policy.rules[4].action = .retry
        let found = findings(policy).filter { $0.id == "RP108" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 25)
        #expect(found[0].message.contains("retries client errors 400-407, 409-424, 426-428, 430-499"))
    }

    @Test("RP108 is silent for 408/425/429 and for a 401 refresh-once rule")
    func retriedClientErrorNegative() {
        var policy = cleanPolicy()
        policy.rules.insert(rule([.code(401)], error: .unauthorized, action: .retry, refresh: true, line: 20), at: 0)
        policy.rules.insert(rule([.code(408), .code(425)], error: .timeout, action: .retry, line: 20), at: 0)
        #expect(!ids(policy).contains("RP108"))
    }

    @Test("RP109 reports a retry rule for POST without an idempotency section")
    func implicitIdempotency() throws {
        var policy = cleanPolicy()
        policy.idempotency = Idempotency()
        policy.rules.insert(rule([.code(409)], methods: [.post], action: .retry, line: 20), at: 0)
        let found = findings(policy).filter { $0.id == "RP109" }
        try #require(found.count == 1)
        #expect(found[0].message.contains("rule at line 20 retries POST, which is not idempotent"))
    }

    @Test("RP109 is silent when idempotency is stated")
    func implicitIdempotencyNegative() {
        var policy = cleanPolicy()
        policy.rules.insert(rule([.code(409)], methods: [.post], action: .retry, line: 20), at: 0)
        #expect(!ids(policy).contains("RP109"))
        var getOnly = cleanPolicy()
        getOnly.idempotency = Idempotency()
        getOnly.rules[2].methods = [.get, .put]
        #expect(!ids(getOnly).contains("RP109"))
    }

    @Test("RP110 reports retry settings in a single-attempt policy")
    func deadConfiguration() throws {
        var policy = cleanPolicy()
        policy.attempts = 1
        policy.budget = RetryBudgetConfiguration(location: at(30))
        let found = findings(policy).filter { $0.id == "RP110" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 5)
        #expect(found[0].message == "attempts is 1, so backoff (line 5), budget (line 30), action: retry in rule at line 21, rule at line 23, rule at line 24 can never take effect")
    }

    @Test("RP110 is silent for a clean single-attempt policy (the seed's mobile SDK)")
    func deadConfigurationNegative() {
        let policy = Policy(
            name: "ios-sdk", attempts: 1,
            rules: [rule([.code(429)], error: .status429, action: .stop, line: 10)],
            defaultRule: DefaultRule(error: .networkError, action: .stop, location: at(12)))
        #expect(!ids(policy).contains("RP110"))
    }

    @Test("RP111 reports 501 swept into a retried 5xx rule")
    func retried501() throws {
        var policy = cleanPolicy()
        policy.rules.remove(at: 1)
        let found = findings(policy).filter { $0.id == "RP111" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 23)
        #expect(found[0].message.contains("retries 501 Not Implemented"))
    }

    @Test("RP111 is silent when 501 stops first")
    func retried501Negative() {
        #expect(!ids(cleanPolicy()).contains("RP111"))
    }

    @Test("RP112 reports 429 and 503 retried without honouring Retry-After")
    func retryAfterIgnored() throws {
        var policy = cleanPolicy()
        policy.rules[0].honorRetryAfter = false
        policy.rules[2].honorRetryAfter = false
        let found = findings(policy).filter { $0.id == "RP112" }
        try #require(found.count == 2)
        #expect(found[0].message.contains("rule at line 21 retries 429 without honouring Retry-After"))
        #expect(found[1].message.contains("rule at line 23 retries 503 without honouring Retry-After"))
    }

    @Test("RP112 is silent when the header is honoured or 429 is not retried")
    func retryAfterIgnoredNegative() {
        #expect(!ids(cleanPolicy()).contains("RP112"))
        var stops = cleanPolicy()
        stops.rules[0].action = .stop
        stops.rules[0].honorRetryAfter = false
        #expect(!ids(stops).contains("RP112"))
    }

    @Test("RP114 states the budget in consecutive failed retries")
    func budgetInNumbers() throws {
        var policy = cleanPolicy()
        policy.budget = RetryBudgetConfiguration(capacity: 500, retryCost: 5, timeoutRetryCost: 10, successRefund: 1, location: at(30))
        let found = findings(policy).filter { $0.id == "RP114" }
        try #require(found.count == 1)
        #expect(found[0].severity == .note)
        #expect(found[0].message == "the budget is empty after 100 consecutive failed retries (capacity 500 / retry_cost 5), or 50 after timeouts (timeout_retry_cost 10); refilling it from empty takes 500 first-try successes")
    }

    @Test("RP114 is silent without a budget")
    func budgetInNumbersNegative() {
        #expect(!ids(cleanPolicy()).contains("RP114"))
    }

    @Test("RP115 reports parity partners that decide differently, grouped into ranges")
    func parityMismatch() throws {
        let ios = cleanPolicy()
        var android = cleanPolicy()
        android.name = "android"
        android.rules[0].action = .stop
        var withParity = ios
        withParity.parity = ["android.yaml"]
        let found = findings(withParity, parity: ["android.yaml": android]).filter { $0.id == "RP115" }
        try #require(found.count == 1)
        // 429 at attempts 1-3 for all 9 methods: retry vs stop (5 idempotent methods x 2 attempts),
        // not_idempotent vs not_retryable (4 others x 2), attempts_exhausted vs not_retryable (9 x 1).
        #expect(found[0].message.contains("decides differently from android.yaml (android) on 27 of 13770 inputs"))
        #expect(found[0].message.contains("status 429, attempt 1 (GET, HEAD, PUT, DELETE, OPTIONS): retry after 0s-1s [status_429] here, stop: status_429 (not_retryable) there"))
    }

    @Test("RP115 is silent for identical decisions even when rules sit on other lines")
    func parityMismatchNegative() {
        var ios = cleanPolicy()
        ios.parity = ["android.yaml"]
        var android = cleanPolicy()
        android.rules = android.rules.map { var moved = $0; moved.location = at(($0.location?.line ?? 0) + 7); return moved }
        #expect(findings(ios, parity: ["android.yaml": android]).isEmpty)
    }

    @Test("RP113 multiplies the attempts of a stack's layers: 3 x 3 x 3 = 27")
    func amplification() throws {
        let layers = ["app", "sdk", "gateway"].map { PolicyStack.Layer(name: $0, policyPath: "\($0).yaml") }
        let stack = PolicyStack(name: "checkout", layers: layers, maxAmplification: 10, location: at(1, column: 1))
        var policy = cleanPolicy()
        policy.attempts = 3
        let found = PolicyLinter().check(stack: stack, layers: layers.map { ($0, policy) }, file: "stack.yaml")
        try #require(found.count == 1)
        #expect(found[0].message == "one failing request through checkout can cause 3 x 3 x 3 = 27 requests (app 3, sdk 3, gateway 3), above max_amplification 10")
        var single = policy
        single.attempts = 1
        let quiet = PolicyLinter().check(stack: stack, layers: [(layers[0], policy), (layers[1], policy), (layers[2], single)], file: "stack.yaml")
        #expect(quiet.isEmpty)  // 3 x 3 x 1 = 9 <= 10
    }

    @Test("every rule in the catalog has a distinct id, a summary and an explanation")
    func catalog() {
        let rules = LintCatalog.rules
        #expect(Set(rules.map(\.id)).count == rules.count)
        #expect(rules.map(\.id) == (101...128).map { "RP\($0)" })
        for rule in rules {
            #expect(!rule.summary.isEmpty && rule.explanation.count > 100, "\(rule.id)")
        }
    }
}

@Suite("Lint at scale")
struct LintScaleTests {
    @Test("thousands of dead rules give 50 detailed findings and one summary, quickly")
    func manyShadowedRules() {
        var policy = cleanPolicy()
        policy.rules = (0..<5000).map { index in
            rule([.code(400 + index % 100)], error: .networkError, action: .stop, line: 100 + index)
        }
        let clock = ContinuousClock()
        var found: [LintFinding] = []
        let elapsed = clock.measure {
            found = PolicyLinter().check(policy: policy, context: LintContext(file: "policy.yaml")).filter { $0.id == "RP101" }
        }
        #expect(found.count == 51)
        #expect(found.last?.message == "4850 more rules can never match because earlier rules cover all their inputs (only the first 50 are listed)")
        #expect(found[0].message == "rule at line 200 can never match: rule at line 100 already matches every input it matches")
        #expect(elapsed < .seconds(20), "lint must not be quadratic in the number of rules: \(elapsed)")
    }
}

@Suite("Lint rules: circuit breaker")
struct BreakerLintRuleTests {
    @Test("RP120: minimum_calls above a count window with no consecutive rule, at the key")
    func minimumCallsUnreachable() throws {
        var policy = cleanPolicy().withBreaker(CircuitBreakerConfiguration(sampling: .count(10), minimumCalls: 20, location: at(30)))
        policy.keyLocations["breaker.minimum_calls"] = at(33)
        let found = findings(policy).filter { $0.id == "RP120" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 33)
        #expect(found[0].severity == .warning)
        #expect(found[0].message == "the breaker can never open: minimum_calls 20 is more than the window of 10 calls holds, and consecutive_failures is not set")
    }

    @Test("RP120 is silent when the window holds minimum_calls, a consecutive rule exists, or the window is by time")
    func minimumCallsReachable() {
        #expect(!ids(cleanPolicy().withBreaker(CircuitBreakerConfiguration(sampling: .count(20), minimumCalls: 20))).contains("RP120"))
        #expect(!ids(cleanPolicy().withBreaker(CircuitBreakerConfiguration(sampling: .count(10), minimumCalls: 20, consecutiveFailures: 5))).contains("RP120"))
        #expect(!ids(cleanPolicy().withBreaker(CircuitBreakerConfiguration(sampling: .time(.seconds(1)), minimumCalls: 1000))).contains("RP120"))
    }

    @Test("RP120: no outcome counts as a failure (a kind no rule reports, or nothing retried)")
    func noFailures() throws {
        var policy = cleanPolicy().withBreaker(CircuitBreakerConfiguration(failures: .init(errors: [.noFill]), location: at(30)))
        policy.keyLocations["breaker.failures"] = at(34)
        let found = findings(policy).filter { $0.id == "RP120" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 34)
        #expect(found[0].message == "the breaker can never open: no outcome the policy decides counts as a failure under breaker.failures")
        var stops = cleanPolicy()
        for index in stops.rules.indices { stops.rules[index].action = .stop }
        #expect(findings(stops).filter { $0.id == "RP120" }.map(\.message) == [
            "the breaker can never open: no outcome counts as a failure: by default a failure is an outcome the policy retries, and no rule or default retries",
        ])
        #expect(!ids(cleanPolicy().withBreaker(CircuitBreakerConfiguration(failures: .init(errors: [.timeout])))).contains("RP120"))
    }

    @Test("RP121: 5xx retried with neither breaker nor budget is a note at the rule's status")
    func noBreakerOrBudget() throws {
        var policy = cleanPolicy().withBreaker(nil)
        policy.keyLocations["rules[2].status"] = at(23, column: 13)
        let found = findings(policy).filter { $0.id == "RP121" }
        try #require(found.count == 1)
        #expect(found[0].severity == .note)
        #expect(found[0].location == at(23, column: 13))
        #expect(found[0].message == "500 is retried, but the policy has neither a circuit breaker nor a retry budget: during an outage nothing bounds the load its retries add")
    }

    @Test("RP121 is silent with a breaker, with a budget, when 5xx is not retried, or with one attempt")
    func noBreakerOrBudgetNegative() {
        #expect(!ids(cleanPolicy()).contains("RP121"))
        var budget = cleanPolicy().withBreaker(nil)
        budget.budget = RetryBudgetConfiguration()
        #expect(!ids(budget).contains("RP121"))
        var stops = cleanPolicy().withBreaker(nil)
        stops.rules[2].action = .stop
        #expect(!ids(stops).contains("RP121"))
        var single = cleanPolicy().withBreaker(nil)
        single.attempts = 1
        #expect(!ids(single).contains("RP121"))
    }
}

@Suite("Budget lint rules")
struct BudgetLintRuleTests {
    func budgeted(_ budget: RetryBudgetConfiguration, keys: [String: Int] = [:]) -> Policy {
        var policy = cleanPolicy()
        var budget = budget
        budget.location = at(40)
        policy.budget = budget
        for (key, line) in keys { policy.keyLocations[key] = at(line) }
        return policy
    }

    @Test("RP117 reports a capacity below every retry cost, at budget.capacity")
    func neverAllowsRetry() throws {
        let policy = budgeted(RetryBudgetConfiguration(capacity: 4, retryCost: 5, timeoutRetryCost: 10, throttlingRetryCost: 5),
                              keys: ["budget.capacity": 41])
        let found = findings(policy).filter { $0.id == "RP117" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 41)
        #expect(found[0].message == "capacity 4 is below every retry cost (retry_cost 5, timeout_retry_cost 10, throttling_retry_cost 5): the budget never allows a retry")
        #expect(found[0].suggestion == "raise capacity to at least 10 or lower the cost")
    }

    @Test("RP117 names the kinds that never retry when only some costs exceed capacity")
    func someNeverRetry() throws {
        let policy = budgeted(RetryBudgetConfiguration(capacity: 12, retryCost: 14, timeoutRetryCost: 14, throttlingRetryCost: 5))
        let found = findings(policy).filter { $0.id == "RP117" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 40)
        #expect(found[0].message == "capacity 12 is below retry_cost 14, timeout_retry_cost 14: retries and retries after timeouts never happen")
    }

    @Test("RP117 is silent for the presets and for budgets that allow a retry")
    func allowsRetry() {
        #expect(!ids(budgeted(.awsStandard)).contains("RP117"))
        #expect(!ids(budgeted(.awsStandard2026)).contains("RP117"))
        #expect(!ids(budgeted(RetryBudgetConfiguration(capacity: 10, retryCost: 10, timeoutRetryCost: 10))).contains("RP117"))
        #expect(!ids(budgeted(.grpc(maxTokens: 1, tokenRatioThousandths: 1))).contains("RP117"))
    }

    @Test("RP118 reports gRPC throttling whose threshold the first failure already reaches, at max_tokens")
    func grpcThreshold() throws {
        for maxTokens in [1, 2] {
            let found = findings(budgeted(.grpc(maxTokens: maxTokens, tokenRatioThousandths: 100), keys: ["budget.max_tokens": 42]))
                .filter { $0.id == "RP118" }
            try #require(found.count == 1)
            #expect(found[0].location.line == 42)
        }
        let two = findings(budgeted(.grpc(maxTokens: 2, tokenRatioThousandths: 100))).first { $0.id == "RP118" }
        #expect(two?.message == "max_tokens 2: the first failure leaves 1 of 2 tokens, not more than half, so no request is ever retried")
        #expect(!ids(budgeted(.grpc(maxTokens: 3, tokenRatioThousandths: 100))).contains("RP118"))
        #expect(!ids(budgeted(RetryBudgetConfiguration(capacity: 1, retryCost: 0, timeoutRetryCost: 0))).contains("RP118"))
    }

    @Test("RP126 reports a ratio budget with no percentage and no minimum, at budget.retry_percent")
    func ratioNeverAllowsRetry() throws {
        let none = RetryBudgetConfiguration.ratio(RatioRetryBudget(permille: 0, minRetriesPerSecond: 0, window: .seconds(10)))
        let found = findings(budgeted(none, keys: ["budget.retry_percent": 44])).filter { $0.id == "RP126" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 44)
        #expect(found[0].message == "retry_percent 0 and min_retries_per_second 0: the ratio budget never allows a retry")
        #expect(found[0].suggestion != nil)
        // Either number alone pays for retries.
        #expect(!ids(budgeted(.ratio(RatioRetryBudget(permille: 0, minRetriesPerSecond: 1, window: .seconds(10))))).contains("RP126"))
        #expect(!ids(budgeted(.ratio(RatioRetryBudget(permille: 1, minRetriesPerSecond: 0, window: .seconds(10))))).contains("RP126"))
    }

    @Test("RP127 reports a ratio budget that never bounds a storm: 100 % or more, or a minimum of 1,000 a second")
    func ratioNeverBounds() throws {
        let all = RetryBudgetConfiguration.ratio(RatioRetryBudget(permille: 1000, minRetriesPerSecond: 10, window: .seconds(10)))
        let found = findings(budgeted(all, keys: ["budget.retry_percent": 45])).filter { $0.id == "RP127" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 45)
        #expect(found[0].message == "retry_percent 100: every request may retry, so under an outage the budget lets through at least twice the load")
        let floor = RetryBudgetConfiguration.ratio(RatioRetryBudget(permille: 200, minRetriesPerSecond: 1000, window: .seconds(10)))
        let high = findings(budgeted(floor, keys: ["budget.min_retries_per_second": 46])).filter { $0.id == "RP127" }
        try #require(high.count == 1)
        #expect(high[0].location.line == 46)
        #expect(!ids(budgeted(.ratio(.finagle))).contains("RP127"))
        #expect(!ids(budgeted(.ratio(RatioRetryBudget(permille: 999, minRetriesPerSecond: 999, window: .seconds(10))))).contains("RP127"))
    }

    @Test("RP119 reports throttling kinds no retrying rule reports, and is silent when the kind is retried")
    func throttlingKinds() throws {
        var bucket = TokenBucketBudget.awsStandard2026
        bucket.throttlingErrors = [SDKError.Kind(rawValue: "rate_limited")]
        let custom = RetryBudgetConfiguration(rules: .tokenBucket(bucket), preset: "aws-standard-2026")
        let found = findings(budgeted(custom, keys: ["budget.throttling_errors": 43])).filter { $0.id == "RP119" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 43)
        #expect(found[0].message == "budget.throttling_errors names rate_limited, which no retrying rule reports: throttling_retry_cost 5 never applies to it")
        #expect(!ids(budgeted(.awsStandard2026)).contains("RP119"))
        // Equal costs: which kinds throttle makes no difference.
        #expect(!ids(budgeted(RetryBudgetConfiguration(throttlingErrors: [SDKError.Kind(rawValue: "rate_limited")]))).contains("RP119"))
    }

    @Test("RP114 states gRPC throttling and throttling costs in numbers")
    func budgetNumbers() {
        let grpc = findings(budgeted(.grpc(maxTokens: 10, tokenRatioThousandths: 100))).first { $0.id == "RP114" }
        #expect(grpc?.message == "gRPC throttling (max_tokens 10) allows 4 consecutive failed retries from full: every retryable failure costs one token and retries stop at half; from empty, 61 successes (token_ratio 0.1) allow the next retry")
        let aws = findings(budgeted(.awsStandard2026)).first { $0.id == "RP114" }
        #expect(aws?.message == "the budget is empty after 35 consecutive failed retries (capacity 500 / retry_cost 14), or 100 after throttling (status_429; throttling_retry_cost 5); refilling it from empty takes 500 first-try successes")
    }

    @Test("RP103 computes the worst case of a linear backoff")
    func linearWorstCase() throws {
        var policy = cleanPolicy()
        policy.attempts = 4
        policy.backoff = .linear(initial: .seconds(1), step: .seconds(2), max: .seconds(10), jitter: .full, location: at(5))
        policy.timeouts.perAttempt = .seconds(5)
        policy.timeouts.total = .seconds(22)
        // Attempts 1-3 take 15s, backoffs 1s + 3s + 5s: attempt 4 would start at 24s.
        let found = findings(policy).filter { $0.id == "RP103" }
        try #require(found.count == 1)
        #expect(found[0].message.contains("attempt 4 of 4 can never start"))
        #expect(found[0].message.contains("1s + 3s + 5s"))
        policy.timeouts.total = .seconds(25)
        #expect(!ids(policy).contains("RP103"))
    }
}
