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
        /// Any subset of the templates, in order from any of them (the
        /// first match wins), and one of the default rules.
        case templates([Rule], defaults: [DefaultRule?])
    }

    /// How often the policy hedges.
    public enum Frequency: Sendable {
        case never, sometimes, always
    }

    /// A whole number the generator draws: from a range, or one of a list.
    public enum Whole: Sendable {
        case range(ClosedRange<Int>)
        case oneOf([Int])
    }

    /// How the longest backoff delay is drawn, in milliseconds.
    public enum MaxDelay: Sendable {
        /// The initial delay plus this.
        case above(Whole)
        /// The initial delay times this.
        case times(Whole)
        /// This, whatever the initial delay (it may be below it).
        case within(Whole)
    }

    /// How a linear backoff's step is drawn.
    public enum LinearStep: Sendable {
        /// Milliseconds in the range.
        case milliseconds(ClosedRange<Int>)
        /// A fraction of the initial delay.
        case fractionsOfInitial([Double])
    }

    /// How a timeout is drawn.
    public enum Timeout: Sendable {
        case oneOf([Duration?])
        /// None half the time, else whole milliseconds in the range.
        case sometimes(ClosedRange<Int>)
    }

    /// How the budget is drawn.
    public enum Budgets: Sendable {
        case none
        /// None, token buckets of random capacity and costs, and gRPC throttling.
        case any
        case oneOf([RetryBudgetConfiguration?])
        /// None half the time, else gRPC throttling in these ranges.
        case sometimesGRPC(maxTokens: ClosedRange<Int>, tokenRatioThousandths: ClosedRange<Int>)
    }

    /// How the circuit breaker is drawn.
    public enum Breakers: Sendable {
        case none
        /// Half the time, a count-based breaker that opens after two failures.
        case sometimesOpeningAfterTwo
        /// Two times in three, a small breaker with every setting drawn
        /// (sampling, ratio, consecutive failures, break growth, probes,
        /// which failures count), small enough to open, half-open and close
        /// within one request's few attempts.
        case random
    }

    /// Which timeout budgets per endpoint are drawn.
    public enum Endpoints: Sendable {
        case none
        /// One time in three, `main_banner` and `feed` with fixed budgets.
        case fixed
        /// Half the time, this endpoint with its timeouts drawn like the
        /// policy's.
        case drawn(String)
    }

    public var attempts: ClosedRange<Int> = 1...6
    /// Initial backoff delays, in milliseconds.
    public var initialDelay: Whole = .range(0...2000)
    public var maxDelay: MaxDelay = .above(.range(0...30_000))
    public var multipliers: [Double] = [1, 1.5, 2, 3, 10]
    /// Whether a linear backoff may be drawn in place of an exponential one.
    public var linearBackoff = true
    public var linearStep: LinearStep = .milliseconds(0...5000)
    public var jitters: [Backoff.Jitter] = Backoff.Jitter.allCases
    /// `nil` draws whether Retry-After is honoured.
    public var honorRetryAfter: Bool? = nil
    public var retryAfterCaps: [Duration?] = [nil, .seconds(1), .seconds(30), .seconds(300)]
    public var aboveCap: [RetryAfterPolicy.AboveCap] = RetryAfterPolicy.AboveCap.allCases
    public var combine: [RetryAfterPolicy.Combine] = RetryAfterPolicy.Combine.allCases
    public var cooldowns: [RetryAfterPolicy.Cooldown] = RetryAfterPolicy.Cooldown.allCases
    public var perAttemptTimeout: Timeout = .oneOf([.seconds(2)])
    public var totalTimeout: Timeout = .oneOf([nil, .seconds(5), .seconds(60)])
    public var endpoint: Endpoints = .none
    /// `nil` leaves the policy's default idempotency.
    public var idempotencies: [Idempotency]? = nil
    public var budget: Budgets = .any
    public var breaker: Breakers = .none
    public var hedging: Frequency = .never
    public var hedgingDelays: [Duration] = [.milliseconds(10), .milliseconds(50), .milliseconds(120)]
    /// Hedged methods; drawn only when there is more than one choice.
    public var hedgingMethods: [Set<HTTPMethod>?] = [nil]
    public var rules: Rules = .randomActions
    /// Every setting a policy file can hold, with the values that are hard
    /// to write: names, descriptions with quotes, line breaks and Unicode,
    /// platforms, sub-millisecond and zero durations, backoff floors,
    /// server-delay headers, idempotency, conditions, declared errors and
    /// their platform names, credential refresh, breaker sampling and
    /// failure filters, hedged methods, parity. Replaces the draws above.
    public var fileSettings = false

    /// Initial delays from a range of milliseconds.
    public var initialDelays: ClosedRange<Int> {
        get { if case .range(let range) = initialDelay { range } else { 0...0 } }
        set { initialDelay = .range(newValue) }
    }

    /// Longest delays as the initial delay plus a range of milliseconds.
    public var maxDelaysAbove: ClosedRange<Int> {
        get { if case .above(.range(let range)) = maxDelay { range } else { 0...0 } }
        set { maxDelay = .above(.range(newValue)) }
    }

    public var perAttemptTimeouts: [Duration?] {
        get { if case .oneOf(let values) = perAttemptTimeout { values } else { [] } }
        set { perAttemptTimeout = .oneOf(newValue) }
    }

    public var totalTimeouts: [Duration?] {
        get { if case .oneOf(let values) = totalTimeout { values } else { [] } }
        set { totalTimeout = .oneOf(newValue) }
    }

    /// Per-endpoint timeout budgets, drawn one time in three when set.
    public var endpoints: Bool {
        get { if case .none = endpoint { false } else { true } }
        set { endpoint = newValue ? .fixed : .none }
    }

    /// Whether budgets are drawn (`Budgets.any`).
    public var budgets: Bool {
        get { if case .none = budget { false } else { true } }
        set { budget = newValue ? .any : .none }
    }

    /// A count-based breaker that opens after two failures, half the time.
    public var breakers: Bool {
        get { if case .none = breaker { false } else { true } }
        set { breaker = newValue ? .sometimesOpeningAfterTwo : .none }
    }

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
        var choices = GeneratorChoices(seed: seed)
        return policy(choices: &choices, name: name)
    }

    /// The policy drawn from `genes`: gene 0 is each choice's first option.
    public func policy(genes: [Int], name: String = "generated") -> Policy {
        var choices = GeneratorChoices(genes: genes)
        return policy(choices: &choices, name: name)
    }

    /// The policy drawn from `choices`, which a suite may go on drawing
    /// from.
    public func policy(choices: inout GeneratorChoices, name: String = "generated") -> Policy {
        if fileSettings { return Self.everySetting(using: &choices) }
        func pick<T>(_ values: [T]) -> T { choices.pick(values) }
        func chance(_ oneIn: Int) -> Bool { choices.chance(oneIn) }
        func whole(_ draw: Whole) -> Int {
            switch draw {
            case .range(let range): choices.int(in: range)
            case .oneOf(let values): choices.pick(values)
            }
        }
        func timeout(_ draw: Timeout) -> Duration? {
            switch draw {
            case .oneOf(let values): choices.pick(values)
            case .sometimes(let range): chance(2) ? .milliseconds(choices.int(in: range)) : nil
            }
        }

        let initialMilliseconds = whole(initialDelay)
        let initial = Duration.milliseconds(initialMilliseconds)
        let maximum: Duration = switch maxDelay {
        case .above(let draw): initial + .milliseconds(whole(draw))
        case .times(let draw): initial * whole(draw)
        case .within(let draw): .milliseconds(whole(draw))
        }
        let backoff: Backoff
        if linearBackoff && chance(2) {
            let step: Duration = switch linearStep {
            case .milliseconds(let range): .milliseconds(choices.int(in: range))
            case .fractionsOfInitial(let fractions): initial * pick(fractions)
            }
            backoff = .linear(initial: initial, step: step, max: maximum, jitter: pick(jitters))
        } else {
            backoff = Backoff(initial: initial, max: maximum, multiplier: pick(multipliers), jitter: pick(jitters))
        }
        let attemptCount = choices.int(in: attempts)
        let retryAfter = RetryAfterPolicy(
            honor: honorRetryAfter ?? chance(2), cap: pick(retryAfterCaps), aboveCap: pick(aboveCap),
            combine: pick(combine), cooldown: pick(cooldowns))
        var policy = Policy(
            name: name,
            attempts: attemptCount,
            backoff: backoff,
            retryAfter: retryAfter,
            timeouts: TimeoutBudget(perAttempt: timeout(perAttemptTimeout), total: timeout(totalTimeout)))
        switch endpoint {
        case .none: break
        case .fixed:
            if chance(3) {
                policy.endpoints = ["main_banner": TimeoutBudget(perAttempt: .seconds(2)), "feed": TimeoutBudget(total: .seconds(9))]
            }
        case .drawn(let name):
            if chance(2) { policy.endpoints[name] = TimeoutBudget(perAttempt: timeout(perAttemptTimeout), total: timeout(totalTimeout)) }
        }
        if let idempotencies { policy.idempotency = pick(idempotencies) }
        switch budget {
        case .none: break
        case .any:
            policy.budget = pick([
                nil,
                RetryBudgetConfiguration(capacity: choices.int(in: 0...50)),
                RetryBudgetConfiguration(
                    capacity: choices.int(in: 0...50), retryCost: pick([5, 14]), timeoutRetryCost: pick([5, 14]),
                    throttlingRetryCost: 5, successRefund: pick([1, 2])),
                .grpc(maxTokens: choices.int(in: 1...10), tokenRatioThousandths: choices.int(in: 1...2000)),
            ])
        case .oneOf(let budgets):
            policy.budget = pick(budgets)
        case .sometimesGRPC(let maxTokens, let ratio):
            if chance(2) { policy.budget = .grpc(maxTokens: choices.int(in: maxTokens), tokenRatioThousandths: choices.int(in: ratio)) }
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
            for index in 0..<choices.int(in: 0...6) {
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
        case .templates(let templates, let defaults):
            // A bit per template: set leaves it out.
            let leftOut = choices.int(in: 0...(1 << templates.count) - 1)
            let chosen = templates.indices.filter { leftOut & (1 << $0) == 0 }
            let rotation = chosen.isEmpty ? 0 : choices.int(in: 0...chosen.count - 1)
            policy.rules = (chosen[rotation...] + chosen[..<rotation]).map { templates[$0] }
            policy.defaultRule = pick(defaults)
        }
        switch breaker {
        case .none: break
        case .sometimesOpeningAfterTwo:
            if chance(2) {
                policy.breaker = CircuitBreakerConfiguration(
                    sampling: .count(4), minimumCalls: 2, consecutiveFailures: 2, breakDuration: .milliseconds(200), halfOpenProbes: 1)
            }
        case .random:
            if choices.int(in: 0...2) != 0 { policy.breaker = Self.randomBreaker(using: &choices) }
        }
        switch hedging {
        case .never: break
        case .sometimes: if chance(3) { policy.hedging = hedge(using: &choices) }
        case .always: policy.hedging = hedge(using: &choices)
        }
        return policy
    }

    private func hedge(using choices: inout GeneratorChoices) -> HedgingPolicy {
        let delay = choices.pick(hedgingDelays)
        return HedgingPolicy(delay: delay, methods: hedgingMethods.count > 1 ? choices.pick(hedgingMethods) : hedgingMethods.first ?? nil)
    }

    /// A breaker with every setting drawn (`Breakers.random`).
    private static func randomBreaker(using choices: inout GeneratorChoices) -> CircuitBreakerConfiguration {
        let failures: [CircuitBreakerConfiguration.Failures] = [
            .retried, .init(errors: [.status5xx, .timeout]), .init(statuses: [.range(500...599), .code(429)]),
            .init(rules: [0]),
        ]
        return CircuitBreakerConfiguration(
            sampling: choices.pick([.count(4), .time(.seconds(1)), .count(2)]),
            failureRatio: choices.pick([0.5, 1.0, 0.3]),
            minimumCalls: choices.pick([2, 3, 1]),
            consecutiveFailures: choices.pick([nil, 1, 2, 3]),
            breakDuration: choices.pick([Duration.milliseconds(150), .milliseconds(40), .seconds(3)]),
            breakMultiplier: choices.pick([1.0, 2.0]),
            maxBreak: .milliseconds(500),
            halfOpenProbes: choices.pick([1, 2]),
            failures: choices.pick(failures),
            error: choices.pick([SDKError.Kind.status5xx, .networkError]))
    }

    /// A policy with every setting a file can hold, valid by construction.
    private static func everySetting(using choices: inout GeneratorChoices) -> Policy {
        func pick<T>(_ values: [T]) -> T { choices.pick(values) }
        func chance(_ oneIn: Int) -> Bool { choices.chance(oneIn) }
        let durations: [Duration] = [
            .zero, .milliseconds(1), .milliseconds(250), .seconds(1), .milliseconds(1500), .seconds(90), .nanoseconds(125_000), .seconds(3600),
        ]
        var policy = Policy(name: pick(["api", "tmdb-v3", "A.b_c-1", "x"]), attempts: choices.int(in: 1...100))
        policy.description = pick([nil, "Seed 000", "line\nbreak \"quoted\" \\ tab\t", "naïve — ünïcode \u{2028}"])
        policy.platform = pick([nil, "ios", "android"])
        let initial = pick(durations)
        let max = pick([nil] + durations.map { Optional($0 + initial) })
        switch choices.int(in: 0...2) {
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
            Rule(transports: Set(TransportFailure.allCases.prefix(choices.int(in: 1...10))), error: .networkError, action: .retry),
            Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
        ]
        if let condition = policy.conditions.first { rules.append(Rule(conditions: [condition], error: pick(kinds), action: .retry)) }
        policy.rules = Array(rules.prefix(choices.int(in: 0...rules.count)))
        // gRPC rules without a draw of their own, so that the draws after
        // them (and every earlier seed's policy) stay as they were.
        if policy.conditions.count == 2 {
            policy.rules.append(Rule(grpc: [.unavailable, .resourceExhausted], error: .status5xx, action: .retry))
            policy.rules.append(Rule(grpc: [.notFound], methods: [.get], error: .notFound, action: .stop))
        }
        policy.defaultRule = pick([nil, DefaultRule(error: .internalError, action: .stop), DefaultRule(error: pick(kinds), action: .retry)])
        switch choices.int(in: 0...3) {
        case 0: policy.budget = .awsStandard
        case 1: policy.budget = .grpc(maxTokens: choices.int(in: 1...1000), tokenRatioThousandths: choices.int(in: 1...5000))
        case 2:
            policy.budget = RetryBudgetConfiguration(
                capacity: choices.int(in: 1...1000), retryCost: choices.int(in: 0...49), throttlingErrors: [pick(kinds)])
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
