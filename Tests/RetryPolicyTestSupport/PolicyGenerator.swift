import RetryPolicyCore

/// The random but valid policies every property test draws from: one
/// generator, whose choices a suite narrows or widens (a storm without
/// jitter, a hedging suite that always hedges, lint with random rule
/// lists). A policy is built from one seed, so a failing case is
/// reproducible from the seed the property check prints.
public struct PolicyGenerator: Sendable {
    /// How the rule list is drawn.
    public enum Rules: Sendable {
        /// 429, 5xx, timeout retried and 404 stopped: the traffic suites'
        /// fixed table, so what the server does decides the outcome.
        case standard
        /// 429, 5xx and transport failures, each retried or stopped at
        /// random; the default rule retries or stops at random too.
        case randomActions
        /// Zero to six rules over random statuses, transports and methods
        /// with random actions, each at its own line of `policy.yaml`.
        case random
    }

    /// How often the policy hedges.
    public enum Frequency: Sendable {
        case never, sometimes, always
    }

    public var attempts: ClosedRange<Int> = 1...6
    /// Initial backoff delays to choose from, in milliseconds.
    public var initialDelays: ClosedRange<Int> = 0...2000
    /// Longest backoff delays, added to the initial delay, in milliseconds.
    public var maxDelaysAbove: ClosedRange<Int> = 0...30_000
    public var multipliers: [Double] = [1, 1.5, 2, 3, 10]
    /// Whether a linear backoff may be drawn in place of an exponential one.
    public var linearBackoff = true
    public var jitters: [Backoff.Jitter] = Backoff.Jitter.allCases
    /// `nil` draws whether Retry-After is honoured.
    public var honorRetryAfter: Bool? = nil
    public var retryAfterCaps: [Duration?] = [nil, .seconds(1), .seconds(30), .seconds(300)]
    public var aboveCap: [RetryAfterPolicy.AboveCap] = RetryAfterPolicy.AboveCap.allCases
    public var combine: [RetryAfterPolicy.Combine] = RetryAfterPolicy.Combine.allCases
    public var cooldowns: [RetryAfterPolicy.Cooldown] = RetryAfterPolicy.Cooldown.allCases
    public var perAttemptTimeouts: [Duration?] = [.seconds(2)]
    public var totalTimeouts: [Duration?] = [nil, .seconds(5), .seconds(60)]
    /// Per-endpoint timeout budgets, drawn one time in three when set.
    public var endpoints = false
    /// Drawn budgets: none, token buckets of random capacity and costs, and
    /// gRPC throttling.
    public var budgets = true
    /// A count-based breaker that opens after two failures, half the time.
    public var breakers = false
    public var hedging: Frequency = .never
    public var hedgingDelays: [Duration] = [.milliseconds(10), .milliseconds(50), .milliseconds(120)]
    public var rules: Rules = .randomActions
    /// Every setting a policy file can hold, with the values that are hard
    /// to write: names, descriptions with quotes, line breaks and Unicode,
    /// platforms, sub-millisecond and zero durations, backoff floors,
    /// server-delay headers, idempotency, conditions, declared errors and
    /// their platform names, credential refresh, breaker sampling and
    /// failure filters, hedged methods, parity. Replaces the draws above.
    public var fileSettings = false

    public init() {}

    /// Every setting a policy file can hold (`fileSettings`).
    public static let everything: PolicyGenerator = {
        var generator = PolicyGenerator()
        generator.fileSettings = true
        return generator
    }()

    /// The decision invariants' policies: every backoff shape, jitter,
    /// Retry-After handling, cooldown and budget, rules retried or stopped
    /// at random.
    public static let decisions = PolicyGenerator()

    /// Policies for simulated traffic: the standard rule table, short
    /// delays, no jitter (so the generator's order cannot matter), shared
    /// budgets, breakers and, one time in three, hedging.
    public static let traffic: PolicyGenerator = {
        var generator = PolicyGenerator()
        generator.initialDelays = 0...1000
        generator.maxDelaysAbove = 5000...5000
        generator.multipliers = [1, 2, 3]
        generator.linearBackoff = false
        generator.jitters = [.none]
        generator.honorRetryAfter = true
        generator.retryAfterCaps = [.seconds(3)]
        generator.combine = [.server]
        generator.perAttemptTimeouts = [nil, .milliseconds(150), .seconds(1)]
        generator.totalTimeouts = [nil, .milliseconds(400), .milliseconds(800), .seconds(3), .seconds(6)]
        generator.breakers = true
        generator.hedging = .sometimes
        generator.rules = .standard
        return generator
    }()

    /// Policies for lint: random rule lists with locations, few attempts,
    /// no budgets.
    public static let lint: PolicyGenerator = {
        var generator = PolicyGenerator()
        generator.attempts = 1...4
        generator.maxDelaysAbove = 2000...20_000
        generator.multipliers = [1, 1.5, 2]
        generator.linearBackoff = false
        generator.retryAfterCaps = [nil, .seconds(30)]
        generator.aboveCap = [.stop]
        generator.combine = [.server]
        generator.cooldowns = [.off]
        generator.perAttemptTimeouts = [nil, .seconds(5)]
        generator.totalTimeouts = [nil, .seconds(20)]
        generator.budgets = false
        generator.rules = .random
        return generator
    }()

    /// One seed from several property-test inputs (the genes a suite also
    /// draws its traffic from).
    public static func seed(_ genes: some Sequence<Int>) -> UInt64 {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for gene in genes {
            var mixer = SplitMix64(seed: seed ^ UInt64(truncatingIfNeeded: gene))
            seed = mixer.next()
        }
        return seed
    }

    /// The policy drawn from `seed`.
    public func policy(seed: UInt64, name: String = "generated") -> Policy {
        var random = SplitMix64(seed: seed)
        if fileSettings { return Self.everySetting(using: &random) }
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }

        let initial = Duration.milliseconds(Int.random(in: initialDelays, using: &random))
        let maximum = initial + .milliseconds(Int.random(in: maxDelaysAbove, using: &random))
        let backoff = linearBackoff && chance(2)
            ? Backoff.linear(initial: initial, step: .milliseconds(Int.random(in: 0...5000, using: &random)), max: maximum, jitter: pick(jitters))
            : Backoff(initial: initial, max: maximum, multiplier: pick(multipliers), jitter: pick(jitters))
        var policy = Policy(
            name: name,
            attempts: Int.random(in: attempts, using: &random),
            backoff: backoff,
            retryAfter: RetryAfterPolicy(
                honor: honorRetryAfter ?? chance(2), cap: pick(retryAfterCaps), aboveCap: pick(aboveCap),
                combine: pick(combine), cooldown: pick(cooldowns)),
            timeouts: TimeoutBudget(perAttempt: pick(perAttemptTimeouts), total: pick(totalTimeouts)))
        if endpoints && chance(3) {
            policy.endpoints = ["main_banner": TimeoutBudget(perAttempt: .seconds(2)), "feed": TimeoutBudget(total: .seconds(9))]
        }
        if budgets {
            policy.budget = pick([
                nil,
                RetryBudgetConfiguration(capacity: Int.random(in: 0...50, using: &random)),
                RetryBudgetConfiguration(
                    capacity: Int.random(in: 0...50, using: &random), retryCost: pick([5, 14]), timeoutRetryCost: pick([5, 14]),
                    throttlingRetryCost: 5, successRefund: pick([1, 2])),
                .grpc(maxTokens: Int.random(in: 1...10, using: &random), tokenRatioThousandths: Int.random(in: 1...2000, using: &random)),
            ])
        }
        switch rules {
        case .standard:
            policy.rules = [
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
                Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            ]
            policy.defaultRule = DefaultRule(error: .internalError, action: .stop)
        case .randomActions:
            policy.rules = [
                Rule(statuses: [.code(429)], error: .status429, action: pick([.retry, .stop])),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: pick([.retry, .stop])),
                Rule(transports: [.timeout, .connectionLost, .cancelled], error: .timeout, action: pick([.retry, .stop])),
            ]
            policy.defaultRule = DefaultRule(error: .networkError, action: pick([.retry, .stop]))
        case .random:
            let statuses: [StatusPattern] = [
                .code(429), .code(503), .code(501), .code(404), .code(408), .statusClass(5), .statusClass(4), .range(500...504), .range(400...429),
            ]
            for index in 0..<Int.random(in: 0...6, using: &random) {
                let useTransport = chance(4)
                policy.rules.append(Rule(
                    statuses: useTransport ? [] : [pick(statuses)] + (chance(2) ? [pick(statuses)] : []),
                    transports: useTransport ? [pick(TransportFailure.allCases), pick(TransportFailure.allCases)] : [],
                    methods: chance(4) ? [pick([.get, .post, .put])] : nil,
                    error: pick([.status5xx, .status429, .networkError, .timeout]),
                    action: pick(Rule.Action.allCases),
                    honorRetryAfter: pick([nil, true, false]),
                    location: at(10 + index)))
            }
            policy.defaultRule = chance(2) ? DefaultRule(error: .networkError, action: pick([.stop, .retry])) : nil
        }
        if breakers && chance(2) {
            policy.breaker = CircuitBreakerConfiguration(
                sampling: .count(4), minimumCalls: 2, consecutiveFailures: 2, breakDuration: .milliseconds(200), halfOpenProbes: 1)
        }
        switch hedging {
        case .never: break
        case .sometimes: if chance(3) { policy.hedging = HedgingPolicy(delay: pick(hedgingDelays)) }
        case .always: policy.hedging = HedgingPolicy(delay: pick(hedgingDelays))
        }
        return policy
    }

    /// A policy with every setting a file can hold, valid by construction.
    private static func everySetting(using random: inout SplitMix64) -> Policy {
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        func chance(_ oneIn: Int) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }
        let durations: [Duration] = [
            .zero, .milliseconds(1), .milliseconds(250), .seconds(1), .milliseconds(1500), .seconds(90), .nanoseconds(125_000), .seconds(3600),
        ]
        var policy = Policy(name: pick(["api", "tmdb-v3", "A.b_c-1", "x"]), attempts: Int.random(in: 1...100, using: &random))
        policy.description = pick([nil, "Seed 000", "line\nbreak \"quoted\" \\ tab\t", "naïve — ünïcode \u{2028}"])
        policy.platform = pick([nil, "ios", "android"])
        let initial = pick(durations)
        let max = pick([nil] + durations.map { Optional($0 + initial) })
        switch Int.random(in: 0..<3, using: &random) {
        case 0: policy.backoff = Backoff(initial: initial, max: max, multiplier: pick([1, 2, 1.5, 0.5, 100, 0.001]), jitter: pick(Backoff.Jitter.allCases))
        case 1: policy.backoff = .linear(initial: initial, step: pick(durations), max: max, jitter: pick(Backoff.Jitter.allCases))
        default: policy.backoff = .immediate
        }
        if chance(2), let cap = policy.backoff.max { policy.backoff.min = pick([.zero, cap, cap / 2]) }
        policy.retryAfter = RetryAfterPolicy(
            honor: chance(2), cap: pick([nil, .seconds(60), .milliseconds(500)]),
            aboveCap: pick(RetryAfterPolicy.AboveCap.allCases), combine: pick(RetryAfterPolicy.Combine.allCases),
            headers: pick([[], [RetryAfterPolicy.Header(name: "Retry-After", format: .http)],
                           [RetryAfterPolicy.Header(name: "x-ms-retry-after-ms", format: .milliseconds),
                            RetryAfterPolicy.Header(name: "RateLimit-Reset", format: .unixSeconds)]]),
            cooldown: pick(RetryAfterPolicy.Cooldown.allCases))
        policy.timeouts = TimeoutBudget(perAttempt: pick([nil, .seconds(5), .milliseconds(300)]), total: pick([nil, .seconds(30)]))
        if chance(3) { policy.endpoints = ["main_banner": TimeoutBudget(perAttempt: .seconds(2)), "feed": TimeoutBudget(total: .seconds(9))] }
        if chance(2) {
            policy.idempotency = Idempotency(
                retryableMethods: pick([[], [.get], Set(HTTPMethod.standard)]), honorIdempotentRequests: chance(2), isExplicit: true)
        }
        policy.conditions = pick([[], ["malformed_body"], ["malformed_body", "maintenance_page"]])
        policy.declaredErrors = pick([[], ["quota_exceeded"], ["quota_exceeded", "status_429"]])
        if policy.declaredErrors.contains("status_429") {
            policy.errorNames = PlatformNames([
                "android": ["status_429": "MediationError.STATUS_429"], "ios": ["quota_exceeded": "SDKError.quota \"exceeded\""],
            ])
        }
        let kinds: [SDKError.Kind] = SDKError.Kind.standard + policy.declaredErrors
        var rules = [
            Rule(statuses: [.code(429)], error: pick(kinds), action: .retry, honorRetryAfter: pick([nil, true, false])),
            Rule(statuses: [.statusClass(5), .range(400...404)], methods: pick([nil, [.get, .put]]), error: .status5xx, action: pick(Rule.Action.allCases)),
            Rule(transports: Set(TransportFailure.allCases.prefix(Int.random(in: 1...10, using: &random))), error: .networkError, action: .retry),
            Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
        ]
        if let condition = policy.conditions.first { rules.append(Rule(conditions: [condition], error: pick(kinds), action: .retry)) }
        policy.rules = Array(rules.prefix(Int.random(in: 0...rules.count, using: &random)))
        policy.defaultRule = pick([nil, DefaultRule(error: .internalError, action: .stop), DefaultRule(error: pick(kinds), action: .retry)])
        switch Int.random(in: 0..<4, using: &random) {
        case 0: policy.budget = .awsStandard
        case 1: policy.budget = .grpc(maxTokens: Int.random(in: 1...1000, using: &random), tokenRatioThousandths: Int.random(in: 1...5000, using: &random))
        case 2:
            policy.budget = RetryBudgetConfiguration(
                capacity: Int.random(in: 1...1000, using: &random), retryCost: Int.random(in: 0..<50, using: &random), throttlingErrors: [pick(kinds)])
        default: break
        }
        if chance(3) {
            var breaker = CircuitBreakerConfiguration()
            breaker.sampling = pick([.count(100), .time(.seconds(60)), .count(7)])
            breaker.maxBreak = pick([nil, .seconds(300)])
            if !policy.rules.isEmpty && chance(2) { breaker.failures = .init(rules: [0], errors: [.status5xx], statuses: [.code(503)]) }
            policy.breaker = breaker
        }
        if chance(5) { policy.hedging = HedgingPolicy(delay: .milliseconds(150), methods: pick([nil, [.get]])) }
        policy.parity = pick([[], ["android-sdk.yaml"]])
        return policy
    }
}
