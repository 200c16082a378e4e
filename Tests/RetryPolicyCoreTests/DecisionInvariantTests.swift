import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

/// Invariants that must hold for every policy and every response sequence:
/// never more tries than allowed, delays inside their bounds, never a retry
/// past the deadline, the budget never negative, a server delay never above
/// the cap.
@Suite struct DecisionInvariantTests {
    /// What one attempt returns in a generated scenario.
    static let outcomes: [AttemptOutcome] = [
        .status(200), .status(204), .status(404), .status(408), .status(429), .status(500), .status(503),
        .status(0), .status(99999),
        .status(429, retryAfter: "1"), .status(429, retryAfter: "120"), .status(503, retryAfter: "7200"),
        .status(503, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT"), .status(503, retryAfter: "Fri, 31 Dec 9999 23:59:59 GMT"),
        .status(429, retryAfter: "-1"), .status(429, retryAfter: "100000000000000000000"), .status(429, retryAfter: "½"),
        .transport(.timeout), .transport(.connectionLost), .transport(.dns), .transport(.cancelled),
    ]

    /// The generated policy for `seed`, with exactly `attempts` attempts.
    static func policy(seed: UInt64, attempts: Int) -> Policy {
        var generator = PolicyGenerator.decisions
        generator.attempts = attempts...attempts
        return generator.policy(seed: seed)
    }

    struct Trace {
        var attempts = 0
        var retries: [(decision: Decision, elapsedBefore: Duration)] = []
        var final: Decision?
    }

    /// Runs one request: each attempt takes `attemptDuration`, then the
    /// scenario's next outcome is decided.
    static func run(_ decider: RetryDecider, outcomes: [AttemptOutcome], seed: UInt64, attemptDuration: Duration) -> Trace {
        var generator = SplitMix64(seed: seed)
        var trace = Trace()
        let start = Timestamp(secondsSince1970: 784_111_000)
        var elapsed = Duration.zero
        var input = DecisionInput(outcome: outcomes[0], now: start)
        for index in 0..<100 {
            trace.attempts += 1
            elapsed += attemptDuration
            input.elapsed = elapsed
            input.now = start + elapsed
            let decision = decider.decide(input, using: &generator)
            guard case .retry(let delay) = decision.action else {
                trace.final = decision
                return trace
            }
            trace.retries.append((decision, elapsed))
            elapsed += delay
            // What the next decision of the same request sees.
            input.attempt += 1
            input.previousDelay = delay
            input.lastRetryCost = decision.budgetCost
            if decision.refreshCredentials { input.credentialRefreshes += 1 }
            input.outcome = outcomes[(index + 1) % outcomes.count]
        }
        return trace
    }

    @Test("Never more tries than attempts; never a retry past the deadline; delays within bounds and cap")
    func invariants() async {
        await propertyCheck(
            count: 400,
            input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...8),
            Gen.int(in: 0...(Self.outcomes.count - 1)).map { Self.outcomes[$0] }.array(of: 1...10), Gen.int(in: 0...3000)
        ) { seed, attempts, outcomes, attemptMilliseconds in
            let policy = Self.policy(seed: seed, attempts: attempts)
            let decider = RetryDecider(policy: policy)
            let trace = Self.run(decider, outcomes: outcomes, seed: seed, attemptDuration: .milliseconds(attemptMilliseconds))

            #expect(trace.attempts <= policy.attempts)
            #expect(trace.final != nil)
            for (decision, elapsedBefore) in trace.retries {
                let delay = decision.delay!
                let bounds = decision.delayBounds!
                #expect(bounds.contains(delay))
                #expect(delay >= .zero)
                if let total = policy.timeouts.total { #expect(elapsedBefore + delay < total) }
                if decision.serverDirected, let cap = policy.retryAfter.cap {
                    // A server delay is never above the cap; with `combine: max`
                    // the backoff may still be larger.
                    let backoffMax = policy.backoff.bounds(forRetry: 1000, previousDelay: policy.backoff.max).upperBound
                    #expect(delay <= max(cap, policy.retryAfter.combine == .max ? backoffMax : cap))
                }
                if !decision.serverDirected {
                    #expect(delay <= max(policy.backoff.max ?? Backoff.ceiling, policy.backoff.initial, policy.backoff.min))
                }
            }
            if let budget = decider.budget {
                #expect(budget.available >= 0)
                #expect(budget.available <= budget.configuration.capacity)
            }
        }
    }

    @Test("The budget never goes negative, whatever the mix of retries and successes")
    func budgetNeverNegative() async {
        await propertyCheck(
            count: 200,
            input: Gen.int(in: 0...60), Gen.int(in: 0...12), Gen.int(in: 0...(Self.outcomes.count - 1)).map { Self.outcomes[$0] }.array(of: 1...200)
        ) { capacity, cost, outcomes in
            var policy = TestPolicies.mobileClient
            policy.attempts = 3
            policy.budget = RetryBudgetConfiguration(capacity: capacity, retryCost: cost, timeoutRetryCost: cost * 2, successRefund: 1)
            policy.rules.insert(Rule(statuses: [.code(429)], error: .status429, action: .retry), at: 0)
            let decider = RetryDecider(policy: policy)
            var lastCost = 0
            for outcome in outcomes {
                let decision = decider.decide(DecisionInput(outcome: outcome, attempt: 1, lastRetryCost: lastCost))
                lastCost = decision.budgetCost
                #expect(decider.budget!.available >= 0)
                #expect(decider.budget!.available <= capacity)
            }
        }
    }

    @Test("Cancellation is never retried")
    func cancellationNeverRetried() async {
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...8)) { seed, attempts in
            var policy = Self.policy(seed: seed, attempts: attempts)
            policy.rules.insert(Rule(transports: [.cancelled], error: .cancelled, action: .retry), at: 0)
            #expect(decide(policy, .transport(.cancelled)).stopReason == .cancelled)
        }
    }

    @Test("The compiled first match agrees with a plain scan of the rules, for every method, with method rules too")
    func compiledTableAgreesWithScan() async {
        await propertyCheck(count: 200, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...3)) { seed, extra in
            var policy = Self.policy(seed: seed, attempts: 3)
            let methodRules: [Rule] = [
                Rule(statuses: [.range(500...599)], methods: [.post], error: .status5xx, action: .stop),
                Rule(statuses: [.code(429)], methods: [.get, .put], error: .status429, action: .retry),
                Rule(transports: [.timeout, .dns], methods: ["PURGE"], error: .timeout, action: .stop),
                Rule(statuses: [.code(404)], methods: [.delete], action: .success),
            ]
            for index in 0..<extra { policy.rules.insert(methodRules[index], at: Int(seed % UInt64(policy.rules.count + 1))) }
            let compiled = RetryDecider(policy: policy)
            func scan(_ outcome: AttemptOutcome, _ method: HTTPMethod) -> Int? {
                policy.rules.firstIndex { rule in
                    switch outcome {
                    case .response(let status, _): rule.matches(status: status, method: method)
                    case .transport(let failure): rule.matches(transport: failure, method: method)
                    case .condition(let condition): rule.matches(condition: condition, method: method)
                    case .grpc(let status, _): rule.matches(grpc: status, method: method)
                    }
                }
            }
            for method in HTTPMethod.standard + ["PURGE"] {
                for status in StatusPattern.validCodes {
                    #expect(compiled.matchingRule(for: .status(status), method: method) == scan(.status(status), method))
                }
                for failure in TransportFailure.allCases {
                    #expect(compiled.matchingRule(for: .transport(failure), method: method) == scan(.transport(failure), method))
                }
            }
        }
    }
}
