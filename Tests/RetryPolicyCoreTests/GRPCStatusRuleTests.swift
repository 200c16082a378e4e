import PropertyBased
import RetryPolicyCore
import Testing

/// gRPC statuses as rule conditions: `grpc: [UNAVAILABLE]` matches a gRPC
/// call that ended UNAVAILABLE, and only that.
@Suite struct GRPCStatusRuleTests {
    static let policy = Policy(
        name: "grpc",
        attempts: 3,
        backoff: Backoff(initial: .milliseconds(100), max: .seconds(1), multiplier: 2, jitter: .none),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(5), aboveCap: .clamp),
        rules: [
            Rule(statuses: [.code(503)], error: .status5xx, action: .retry),
            Rule(grpc: [.unavailable, .resourceExhausted], error: .status5xx, action: .retry),
            Rule(grpc: [.notFound], error: .notFound, action: .stop),
            Rule(grpc: [.alreadyExists], action: .success),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop)
    )

    @Test("The 17 codes: numbers 0-16 and their canonical names")
    func codes() {
        #expect(GRPCStatusCode.allCases.map(\.rawValue) == Array(0...16))
        #expect(GRPCStatusCode.unavailable.rawValue == 14)
        #expect(GRPCStatusCode.unavailable.name == "UNAVAILABLE")
        #expect(GRPCStatusCode.resourceExhausted.name == "RESOURCE_EXHAUSTED")
        #expect(GRPCStatusCode.internal.name == "INTERNAL")
        #expect(GRPCStatusCode.unauthenticated.rawValue == 16)
        #expect(Set(GRPCStatusCode.allCases.map(\.name)).count == 17)
    }

    @Test("Parsing takes a name in any letter case or a number, nothing else")
    func parsing() {
        for code in GRPCStatusCode.allCases {
            #expect(GRPCStatusCode(parsing: code.name) == code)
            #expect(GRPCStatusCode(parsing: code.name.lowercased()) == code)
            #expect(GRPCStatusCode(parsing: String(code.rawValue)) == code)
        }
        #expect(GRPCStatusCode(parsing: "Resource_Exhausted") == .resourceExhausted)
        for text in ["", "17", "-1", "+14", " 14", "UNAVAILABLE ", "UNAVAILBLE", "99999999999999999999999", "1.0", "ok!"] {
            #expect(GRPCStatusCode(parsing: text) == nil, "\(text)")
        }
    }

    @Test("A gRPC rule matches its codes; an HTTP rule never matches a gRPC outcome, nor a gRPC rule an HTTP one")
    func separateDomains() {
        #expect(decide(Self.policy, .grpc(.unavailable)).ruleIndex == 1)
        #expect(decide(Self.policy, .grpc(.resourceExhausted)).isRetry)
        #expect(decide(Self.policy, .grpc(.notFound)).stopReason == .notRetryable)
        #expect(decide(Self.policy, .grpc(.notFound)).ruleIndex == 2)
        // 503 is UNAVAILABLE's HTTP stand-in; neither matches the other's rule.
        #expect(decide(Self.policy, .status(503)).ruleIndex == 0)
        var httpOnly = Self.policy
        httpOnly.rules = [Rule(statuses: [.range(100...599)], error: .status5xx, action: .retry)]
        for code in GRPCStatusCode.allCases {
            #expect(decide(httpOnly, .grpc(code)).ruleIndex == nil, "\(code)")
        }
        var grpcOnly = Self.policy
        grpcOnly.rules = [Rule(grpc: Set(GRPCStatusCode.allCases), error: .status5xx, action: .retry)]
        for status in [200, 404, 429, 503] { #expect(decide(grpcOnly, .status(status)).ruleIndex == nil) }
    }

    @Test("Unmatched gRPC statuses get the default; an unmatched OK is a success, as an unmatched 2xx")
    func defaultRule() {
        let unknown = decide(Self.policy, .grpc(.unknown))
        #expect(unknown.ruleIndex == nil)
        #expect(unknown.stopReason == .notRetryable)
        #expect(unknown.error?.kind == .networkError)
        #expect(unknown.error?.grpcStatus == .unknown)
        #expect(decide(Self.policy, .grpc(.ok)).action == .success)
        var retryAll = Self.policy
        retryAll.defaultRule = DefaultRule(error: .networkError, action: .retry)
        #expect(decide(retryAll, .grpc(.dataLoss)).isRetry)
        #expect(decide(retryAll, .grpc(.ok)).action == .success)
        #expect(decide(Self.policy, .grpc(.alreadyExists)).action == .success)
    }

    @Test("A stop carries the gRPC status; its message names it")
    func errorCarriesStatus() {
        let stop = decide(Self.policy, .grpc(.unavailable), attempt: 3)
        #expect(stop.stopReason == .attemptsExhausted)
        #expect(stop.error?.grpcStatus == .unavailable)
        #expect(stop.error?.statusCode == nil)
        #expect(stop.error?.message == "status_5xx: gRPC UNAVAILABLE")
    }

    @Test("Method restrictions apply to gRPC rules")
    func methods() {
        var policy = Self.policy
        policy.rules.insert(Rule(grpc: [.unavailable], methods: [.post], error: .status5xx, action: .stop), at: 0)
        #expect(decide(policy, .grpc(.unavailable), method: .post).ruleIndex == 0)
        #expect(decide(policy, .grpc(.unavailable), method: .get).ruleIndex == 2)
    }

    @Test("The compiled first match agrees with a scan of the rules for gRPC outcomes")
    func compiledAgreesWithScan() async {
        let codes = GRPCStatusCode.allCases
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max)) { seed in
            var generator = SplitMix64(seed: seed)
            var rules: [Rule] = []
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                let chosen = Set(codes.filter { _ in Bool.random(using: &generator) })
                let methods: Set<HTTPMethod>? = Bool.random(using: &generator) ? [.post] : nil
                rules.append(Rule(grpc: chosen, methods: methods, error: .status5xx, action: .retry))
            }
            var policy = Self.policy
            policy.rules = rules
            let decider = RetryDecider(policy: policy)
            for method in [HTTPMethod.get, .post] {
                for code in codes {
                    let scanned = rules.firstIndex { $0.matches(grpc: code, method: method) }
                    #expect(decider.matchingRule(for: .grpc(code), method: method) == scanned)
                }
            }
        }
    }
}
