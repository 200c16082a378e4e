import Foundation
import PropertyBased
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Policies built in code: validated by the checks a file passes, and
/// written as files that load back to the same policy.
@Suite struct PolicyInCodeTests {
    /// `policy` without the places its parts were read from.
    static func stripped(_ policy: Policy) -> Policy {
        var policy = policy
        policy.location = nil
        policy.keyLocations = [:]
        policy.backoff.location = nil
        policy.retryAfter.location = nil
        policy.timeouts.location = nil
        policy.endpoints = policy.endpoints.mapValues { var budget = $0; budget.location = nil; return budget }
        policy.idempotency.location = nil
        policy.budget?.location = nil
        policy.breaker?.location = nil
        policy.hedging?.location = nil
        policy.rules = policy.rules.map { var rule = $0; rule.location = nil; return rule }
        policy.defaultRule?.location = nil
        return policy
    }

    /// A policy from 40 genes, valid by construction.
    static func policy(_ genes: [Int], seed: UInt64) -> Policy {
        func pick<T>(_ index: Int, _ options: [T]) -> T { options[genes[index] % options.count] }
        let durations: [Duration] = [.zero, .milliseconds(1), .milliseconds(250), .seconds(1), .milliseconds(1500), .seconds(90), .nanoseconds(125_000), .seconds(3600)]
        var policy = Policy(name: pick(0, ["api", "tmdb-v3", "A.b_c-1", "x"]), attempts: 1 + genes[1] % 100)
        policy.description = pick(2, [nil, "Seed 000", "line\nbreak \"quoted\" \\ tab\t", "naïve — ünïcode \u{2028}"])
        policy.platform = pick(3, [nil, "ios", "android"])
        let initial = pick(4, durations)
        let max = pick(5, [nil] + durations.map { Optional($0 + initial) })
        switch genes[6] % 3 {
        case 0: policy.backoff = Backoff(initial: initial, max: max, multiplier: pick(7, [1, 2, 1.5, 0.5, 100, 0.001]), jitter: pick(8, Backoff.Jitter.allCases))
        case 1: policy.backoff = .linear(initial: initial, step: pick(7, durations), max: max, jitter: pick(8, Backoff.Jitter.allCases))
        default: policy.backoff = .immediate
        }
        if genes[9] % 2 == 0, let cap = policy.backoff.max { policy.backoff.min = pick(10, [.zero, cap, cap / 2]) }
        policy.retryAfter = RetryAfterPolicy(
            honor: genes[11] % 2 == 0, cap: pick(12, [nil, .seconds(60), .milliseconds(500)]),
            aboveCap: pick(13, RetryAfterPolicy.AboveCap.allCases), combine: pick(14, RetryAfterPolicy.Combine.allCases),
            headers: pick(15, [[], [RetryAfterPolicy.Header(name: "Retry-After", format: .http)],
                                [RetryAfterPolicy.Header(name: "x-ms-retry-after-ms", format: .milliseconds),
                                 RetryAfterPolicy.Header(name: "RateLimit-Reset", format: .unixSeconds)]]),
            cooldown: pick(16, RetryAfterPolicy.Cooldown.allCases))
        policy.timeouts = TimeoutBudget(perAttempt: pick(17, [nil, .seconds(5), .milliseconds(300)]), total: pick(18, [nil, .seconds(30)]))
        if genes[19] % 3 == 0 { policy.endpoints = ["main_banner": TimeoutBudget(perAttempt: .seconds(2)), "feed": TimeoutBudget(total: .seconds(9))] }
        if genes[20] % 2 == 0 {
            policy.idempotency = Idempotency(
                retryableMethods: pick(21, [[], [.get], Set(HTTPMethod.standard)]), honorIdempotentRequests: genes[22] % 2 == 0, isExplicit: true)
        }
        policy.conditions = pick(23, [[], ["malformed_body"], ["malformed_body", "maintenance_page"]])
        policy.declaredErrors = pick(24, [[], ["quota_exceeded"], ["quota_exceeded", "status_429"]])
        if policy.declaredErrors.contains("status_429") {
            policy.errorNames = PlatformNames(["android": ["status_429": "MediationError.STATUS_429"], "ios": ["quota_exceeded": "SDKError.quota \"exceeded\""]])
        }
        let kinds: [SDKError.Kind] = SDKError.Kind.standard + policy.declaredErrors
        var rules = [
            Rule(statuses: [.code(429)], error: pick(25, kinds), action: .retry, honorRetryAfter: pick(26, [nil, true, false])),
            Rule(statuses: [.statusClass(5), .range(400...404)], methods: pick(27, [nil, [.get, .put]]), error: .status5xx, action: pick(28, Rule.Action.allCases)),
            Rule(transports: Set(TransportFailure.allCases.prefix(1 + genes[29] % 10)), error: .networkError, action: .retry),
            Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
        ]
        if let condition = policy.conditions.first { rules.append(Rule(conditions: [condition], error: pick(30, kinds), action: .retry)) }
        policy.rules = Array(rules.prefix(genes[31] % (rules.count + 1)))
        policy.defaultRule = pick(32, [nil, DefaultRule(error: .internalError, action: .stop), DefaultRule(error: pick(33, kinds), action: .retry)])
        switch genes[34] % 4 {
        case 0: policy.budget = .awsStandard
        case 1: policy.budget = .grpc(maxTokens: 1 + genes[35] % 1000, tokenRatioThousandths: 1 + genes[36] % 5000)
        case 2: policy.budget = RetryBudgetConfiguration(capacity: 1 + genes[35] % 1000, retryCost: genes[36] % 50, throttlingErrors: [pick(37, kinds)])
        default: break
        }
        if genes[38] % 3 == 0 {
            var breaker = CircuitBreakerConfiguration()
            breaker.sampling = pick(39, [.count(100), .time(.seconds(60)), .count(7)])
            breaker.maxBreak = pick(37, [nil, .seconds(300)])
            if !policy.rules.isEmpty && genes[36] % 2 == 0 { breaker.failures = .init(rules: [0], errors: [.status5xx], statuses: [.code(503)]) }
            policy.breaker = breaker
        }
        if genes[35] % 5 == 0 { policy.hedging = HedgingPolicy(delay: .milliseconds(150), methods: pick(39, [nil, [.get]])) }
        policy.parity = pick(40 % genes.count, [[], ["android-sdk.yaml"]])
        return policy
    }

    @Test func aPolicyBuiltInCodeIsWrittenAsAFileThatLoadsBackEqual() async throws {
        await propertyCheck(count: 500, input: Gen.int(in: 0...100_000).array(of: 41), Gen.uint64()) { genes, seed in
            let policy = Self.policy(genes, seed: seed)
            #expect(policy.problems == [], "\(policy)")
            do {
                let text = try PolicyWriter.yaml(policy)
                let loaded = try PolicyLoader().loadPolicy(yaml: text, path: "written.yaml")
                var expected = Self.stripped(policy)
                if expected.backoff.max == nil { expected.backoff.max = Backoff.ceiling }
                #expect(Self.stripped(loaded) == expected, "\(text)")
            } catch {
                Issue.record("\(error)\n\(policy)")
            }
        }
    }

    @Test func aPolicyInCodeTheLoaderWouldRefuseThrowsTheSameRuleAtAKeyPath() throws {
        var policy = Policy(name: "api", attempts: 0)
        policy.rules = [
            Rule(statuses: [.code(503)], error: "quota", action: .retry),
            Rule(action: .stop),
            Rule(conditions: ["malformed_body"], error: .status5xx, action: .retry),
        ]
        policy.backoff = Backoff(initial: .seconds(1), max: .seconds(2), multiplier: .nan, min: .seconds(3))
        let error = try #require(throws: PolicyValidationError.self) { try policy.validated() }
        #expect(error.problems.map(\.description) == [
            "attempts: expected an integer from 1 to 100, found 0 [RP019]",
            "backoff.min: expected at most backoff.max (2s), found 3s [RP019] (the floor is applied after the cap; lower 'min' or raise 'max')",
            "backoff.multiplier: expected a number from 0 to 100, found nan [RP019]",
            "rules[0].error: expected a standard error kind or one declared under 'errors', found 'quota' [RP016] (declare it under 'errors' or use one of no_fill, network_error, status_429, status_5xx, timeout, internal_error, invalid_placement, unauthorized, not_found, cancelled, decoding_failed)",
            "rules[1]: expected 'status', 'transport' or 'condition', found none [RP023] (a rule without conditions matches nothing; use 'default' for unmatched inputs)",
            "rules[1]: missing required key 'error' (a stop rule reports an error kind) [RP012]",
            "rules[2].condition: expected a condition declared under 'conditions', found 'malformed_body' [RP027] (declare it: conditions: [malformed_body])",
        ])
        // The same mistakes in a file are refused with the same rules.
        let file = """
            version: 1
            name: api
            attempts: 0
            """
        let loaded = try #require(throws: PolicyLoadError.self) { try PolicyLoader().loadPolicy(yaml: file, path: "api.yaml") }
        #expect(loaded.diagnostics.map(\.id) == ["RP019"])
    }

    @Test func attemptsFarAboveTheBoundAreAProblemNotAnOverflow() {
        let policy = Policy(name: "api", attempts: .max)
        #expect(policy.problems.map(\.id) == ["RP019"])
        #expect(throws: PolicyValidationError.self) { try PolicyWriter.yaml(policy) }
    }

    @Test func aBackoffDefinedInCodeHasNoFileForm() {
        var policy = Policy(name: "api", attempts: 3)
        policy.backoff = .custom("fibonacci") { .seconds($0) }
        #expect(policy.problems.isEmpty)
        let error = #expect(throws: PolicyValidationError.self) { try PolicyWriter.yaml(policy) }
        #expect(error?.problems.map(\.keyPath) == ["backoff"])
    }

    @Test func everyShippedPolicyIsValidAndRoundTrips() throws {
        let directory = RepositoryFiles.path("policies")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".yaml") && !$0.hasSuffix(".tests.yaml")
        }
        #expect(!files.isEmpty)
        for file in files.sorted() {
            guard let policy = try? PolicyLoader().loadPolicy(atPath: directory + "/" + file) else { continue }
            #expect(policy.problems == [], "\(file)")
            let text = try PolicyWriter.yaml(policy)
            let loaded = try PolicyLoader().loadPolicy(yaml: text, path: file)
            #expect(Self.stripped(loaded) == Self.stripped(policy), "\(file)\n\(text)")
        }
    }
}
