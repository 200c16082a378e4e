import PropertyBased
import RetryPolicyCore
import Testing

/// Linear backoff, per-kind retry costs, the AWS presets and gRPC retry
/// throttling.
@Suite struct LinearBackoffTests {
    @Test("Linear: initial + step x (k-1), capped at max")
    func numbers() {
        let backoff = Backoff.linear(initial: .seconds(1), step: .milliseconds(500), max: .seconds(2), jitter: .none)
        #expect(backoff.base(forRetry: 1) == .seconds(1))
        #expect(backoff.base(forRetry: 2) == .milliseconds(1500))
        #expect(backoff.base(forRetry: 3) == .seconds(2))
        #expect(backoff.base(forRetry: 4) == .seconds(2))
        #expect(backoff.base(forRetry: Int.max) == .seconds(2))
        // Step 0 is a constant delay.
        let constant = Backoff.linear(initial: .milliseconds(300), step: .zero, max: .seconds(10))
        #expect((1...5).map { constant.base(forRetry: $0) } == Array(repeating: .milliseconds(300), count: 5))
    }

    @Test("Linear is monotone, capped, and every jitter mode stays within its bounds")
    func linearProperties() async {
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 0...5000), Gen.int(in: 0...5000), Gen.int(in: 0...60_000), Gen.int(in: 0...3), Gen.uint64(in: 0...UInt64.max)
        ) { initial, step, maxMillis, jitterIndex, seed in
            let jitter = Backoff.Jitter.allCases[jitterIndex]
            let backoff = Backoff.linear(
                initial: .milliseconds(initial), step: .milliseconds(step), max: .milliseconds(maxMillis), jitter: jitter)
            var generator = SplitMix64(seed: seed)
            var previousBase = Duration.zero
            var previousDelay: Duration?
            for k in 1...40 {
                let base = backoff.base(forRetry: k)
                #expect(base >= previousBase)
                #expect(base <= .milliseconds(maxMillis))
                #expect(base == min(.milliseconds(initial + step * (k - 1)), .milliseconds(maxMillis)))
                previousBase = base
                let bounds = backoff.bounds(forRetry: k, previousDelay: previousDelay)
                let delay = backoff.delay(forRetry: k, previousDelay: previousDelay, using: &generator)
                #expect(bounds.contains(delay))
                #expect(delay <= max(.milliseconds(maxMillis), .milliseconds(initial)))
                switch jitter {
                case .none: #expect(delay == base)
                case .full: #expect(bounds == .zero...base)
                case .equal: #expect(bounds == (base / 2)...base)
                case .decorrelated: #expect(bounds.lowerBound == min(.milliseconds(initial), .milliseconds(maxMillis)))
                }
                previousDelay = delay
            }
        }
    }
}

@Suite struct BudgetStyleTests {
    static func policy(_ budget: RetryBudgetConfiguration, attempts: Int = 1000) -> Policy {
        Policy(
            name: "budgeted", attempts: attempts, budget: budget,
            rules: [
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
                Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            ])
    }

    @Test("aws-standard: 500 tokens, retry 5, timeout 10, throttling 5, refund 1")
    func awsStandardNumbers() throws {
        let preset = RetryBudgetConfiguration.awsStandard
        #expect(preset.style == .tokenBucket)
        let bucket = try #require(preset.tokenBucket)
        #expect(bucket == .awsStandard)
        #expect([bucket.capacity, bucket.retryCost, bucket.timeoutRetryCost, bucket.throttlingRetryCost, bucket.successRefund] == [500, 5, 10, 5, 1])
        #expect(bucket.throttlingErrors == [.status429])
        #expect(preset.preset == "aws-standard")
    }

    @Test("aws-standard-2026: 500 tokens, transient 14, timeout 14 (no surcharge), throttling 5, refund 1")
    func awsStandard2026Numbers() throws {
        let preset = RetryBudgetConfiguration.awsStandard2026
        #expect(preset.style == .tokenBucket)
        let bucket = try #require(preset.tokenBucket)
        #expect(bucket == .awsStandard2026)
        #expect([bucket.capacity, bucket.retryCost, bucket.timeoutRetryCost, bucket.throttlingRetryCost, bucket.successRefund] == [500, 14, 14, 5, 1])
        #expect(bucket.throttlingErrors == [.status429])
        #expect(preset.preset == "aws-standard-2026")
    }

    @Test("grpc: thousandths of a token, a failure costs 1000, threshold half of capacity, token_ratio its own number")
    func grpcNumbers() throws {
        let preset = RetryBudgetConfiguration.grpc(maxTokens: 10, tokenRatioThousandths: 100)
        #expect(preset.style == .grpc)
        let throttling = try #require(preset.grpcThrottling)
        #expect(throttling == GRPCRetryThrottling(maxTokens: 10, tokenRatio: 100))
        #expect(preset.tokenBucket == nil)
        #expect([preset.capacity, preset.retryCost, preset.timeoutRetryCost, preset.throttlingRetryCost] == [10_000, 1000, 1000, 1000])
        #expect(preset.throttlingErrors.isEmpty)
        #expect(preset.maxTokens == 10)
        #expect(preset.threshold == 5000)
        // Failures 1-4 leave 9, 8, 7, 6 tokens (> 5); the fifth leaves 5.
        #expect(preset.consecutiveRetries == 4)
        #expect(RetryBudgetConfiguration.grpc(maxTokens: 3, tokenRatioThousandths: 1).consecutiveRetries == 1)
        #expect(RetryBudgetConfiguration.grpc(maxTokens: 2, tokenRatioThousandths: 1).consecutiveRetries == 0)
    }

    @Test("Token bucket: the cost depends on the kind of failure; throttling is the listed kinds")
    func costsByKind() {
        let decider = RetryDecider(policy: Self.policy(.awsStandard2026))
        #expect(decide(decider, .status(503)).budgetCost == 14)
        #expect(decide(decider, .status(429)).budgetCost == 5)
        #expect(decide(decider, .transport(.timeout)).budgetCost == 14)
        #expect(decider.budget!.available == 500 - 14 - 5 - 14)

        let old = RetryDecider(policy: Self.policy(.awsStandard))
        #expect(decide(old, .status(503)).budgetCost == 5)
        #expect(decide(old, .status(429)).budgetCost == 5)
        #expect(decide(old, .transport(.timeout)).budgetCost == 10)

        // Which kinds throttle is data: a policy may count 503 as throttling.
        var custom = TokenBucketBudget.awsStandard2026
        custom.throttlingErrors = [.status5xx]
        let byData = RetryDecider(policy: Self.policy(RetryBudgetConfiguration(rules: .tokenBucket(custom))))
        #expect(decide(byData, .status(503)).budgetCost == 5)
        #expect(decide(byData, .status(429)).budgetCost == 14)
    }

    @Test("Token bucket: a success refunds the last retry's cost, a first-try success the refund")
    func tokenBucketRefunds() {
        let decider = RetryDecider(policy: Self.policy(.awsStandard2026))
        #expect(decide(decider, .status(503)).budgetCost == 14)
        #expect(decider.budget!.available == 486)
        _ = decide(decider, .status(200), lastRetryCost: 14)
        #expect(decider.budget!.available == 500)
        #expect(decide(decider, .status(429)).budgetCost == 5)
        _ = decide(decider, .status(200))
        #expect(decider.budget!.available == 496)
    }

    @Test("gRPC: every retryable failure drains a token; retries only while more than half remain")
    func grpcThrottling() {
        let decider = RetryDecider(policy: Self.policy(.grpc(maxTokens: 4, tokenRatioThousandths: 500)))
        let budget = decider.budget!
        #expect(budget.available == 4000)
        // 4 -> 3 (> 2): retried.
        #expect(decide(decider, .status(503)).isRetry)
        #expect(budget.available == 3000)
        // 3 -> 2 (not > 2): throttled.
        #expect(decide(decider, .status(429)).stopReason == .budgetExhausted)
        #expect(budget.available == 2000)
        // A failure that is not retryable leaves the tokens alone.
        #expect(decide(decider, .status(404)).stopReason == .notRetryable)
        #expect(budget.available == 2000)
        // Throttled failures keep draining, never below zero.
        for _ in 0..<5 { #expect(decide(decider, .transport(.timeout)).stopReason == .budgetExhausted) }
        #expect(budget.available == 0)
        // Every success returns token_ratio (0.5), whatever the last retry cost.
        for _ in 0..<7 { _ = decide(decider, .status(200), lastRetryCost: 1000) }
        #expect(budget.available == 3500)
        // 3.5 -> 2.5 (> 2): retried again.
        #expect(decide(decider, .status(500)).isRetry)
        #expect(budget.available == 2500)
        // Successes stop at capacity.
        for _ in 0..<20 { _ = decide(decider, .status(200)) }
        #expect(budget.available == 4000)
    }

    @Test("gRPC: the last attempt's failure is counted too, as gRPC counts it before the attempt limit")
    func grpcCountsLastAttempt() {
        let decider = RetryDecider(policy: Self.policy(.grpc(maxTokens: 10, tokenRatioThousandths: 100), attempts: 2))
        #expect(decide(decider, .status(503), attempt: 2).stopReason == .attemptsExhausted)
        #expect(decider.budget!.available == 9000)
    }

    @Test("gRPC throttling shares its tokens through the store")
    func grpcThroughStore() {
        let store = RecordingStateStore(tokens: 3000)
        let policy = Self.policy(.grpc(maxTokens: 3, tokenRatioThousandths: 250))
        let one = RetryDecider(policy: policy, store: store, key: "k")
        let two = RetryDecider(policy: policy, store: store, key: "k")
        #expect(decide(one, .status(503)).isRetry)  // 3 -> 2 (> 1.5)
        #expect(decide(two, .status(503)).stopReason == .budgetExhausted)  // 2 -> 1
        #expect(store.calls.withLock { $0.drains } == [1000, 1000])
        #expect(store.calls.withLock { $0.withdrawals }.isEmpty)
        #expect(store.shared.withLock { $0 } == 1000)
    }

    @Test("Budgets never go negative or above capacity under any mix of withdrawals, drains and refunds")
    func bucketBounds() async {
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 0...5000), Gen.int(in: 0...3).array(of: 1...100), Gen.int(in: 0...2000).array(of: 1...100)
        ) { capacity, operations, amounts in
            let budget = RetryBudget(configuration: RetryBudgetConfiguration(capacity: capacity))
            for (operation, amount) in zip(operations, amounts) {
                switch operation {
                case 0: _ = budget.withdraw(amount)
                case 1: #expect(budget.drain(amount) == budget.available)
                case 2: budget.deposit(amount)
                default: budget.synchronize(available: amount * 3 - 1000)
                }
                #expect(budget.available >= 0)
                #expect(budget.available <= capacity)
            }
        }
    }

    @Test("Deciding never takes a budget of any style outside 0...capacity, whatever the outcomes")
    func decidedBounds() async {
        let outcomes: [AttemptOutcome] = [.status(200), .status(429), .status(503), .status(404), .transport(.timeout), .transport(.connectionLost)]
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 0...2), Gen.int(in: 1...60), Gen.int(in: 0...20), Gen.int(in: 0...(outcomes.count - 1)).array(of: 1...200)
        ) { style, size, cost, picks in
            let budget: RetryBudgetConfiguration
            switch style {
            case 0: budget = RetryBudgetConfiguration(capacity: size, retryCost: cost, timeoutRetryCost: cost * 2, throttlingRetryCost: cost / 2, successRefund: 1)
            case 1: budget = .awsStandard2026
            default: budget = .grpc(maxTokens: size, tokenRatioThousandths: cost * 50 + 1)
            }
            let decider = RetryDecider(policy: Self.policy(budget, attempts: 3))
            var lastCost = 0
            var attempt = 1
            for pick in picks {
                let decision = decide(decider, outcomes[pick], attempt: attempt, lastRetryCost: lastCost)
                lastCost = decision.isRetry ? decision.budgetCost : 0
                attempt = decision.isRetry ? attempt + 1 : 1
                #expect(decider.budget!.available >= 0)
                #expect(decider.budget!.available <= budget.capacity)
            }
        }
    }

    func decide(_ decider: RetryDecider, _ outcome: AttemptOutcome, attempt: Int = 1, lastRetryCost: Int = 0) -> Decision {
        var generator = SplitMix64(seed: 7)
        return decider.decide(DecisionInput(outcome: outcome, attempt: attempt, lastRetryCost: lastRetryCost), using: &generator)
    }
}
