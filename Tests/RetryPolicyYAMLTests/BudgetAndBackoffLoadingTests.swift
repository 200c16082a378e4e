import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Linear backoff, budget presets, per-kind costs and gRPC throttling as
/// the loader reads them, with the exact located error for each bad value.
@Suite struct BudgetAndBackoffLoadingTests {
    static func load(_ body: String) throws(PolicyLoadError) -> Policy {
        try PolicyLoader().loadPolicy(yaml: "version: 1\nname: p\n" + body, path: "p.yaml")
    }

    static func errors(_ body: String) -> [String] {
        do {
            _ = try load(body)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("shape: linear with initial, step and max")
    func linearBackoff() throws {
        let policy = try Self.load("backoff:\n  shape: linear\n  initial: 1s\n  step: 500ms\n  max: 3s\n  jitter: equal\n")
        #expect(policy.backoff.growth.name == "linear")
        #expect(policy.backoff.step == .milliseconds(500))
        #expect(policy.backoff.jitter == .equal)
        #expect((1...5).map { policy.backoff.base(forRetry: $0) } == [.seconds(1), .milliseconds(1500), .seconds(2), .milliseconds(2500), .seconds(3)])
        let exponential = try Self.load("backoff:\n  shape: exponential\n  initial: 1s\n  max: 8s\n")
        #expect(exponential.backoff.growth.name == "exponential")
        #expect(exponential.backoff.base(forRetry: 3) == .seconds(4))
    }

    @Test("Bad backoff shapes and keys that do not apply are located errors", arguments: [
        ("backoff:\n  shape: quadratic\n  initial: 1s\n",
         "p.yaml:4:10: error: backoff.shape: expected exponential or linear, found the string 'quadratic' [RP013]"),
        ("backoff:\n  shape: linear\n  initial: 1s\n",
         "p.yaml:4:3: error: missing required key 'step' in 'backoff' (shape linear adds it per retry) [RP012] (write step: 0s for a constant delay)"),
        ("backoff:\n  shape: linear\n  initial: 1s\n  step: 1s\n  multiplier: 2\n",
         "p.yaml:7:3: error: backoff.multiplier: applies only to shape exponential, found shape linear [RP026] (a linear backoff grows by 'step'; remove 'multiplier')"),
        ("backoff:\n  initial: 1s\n  step: 1s\n",
         "p.yaml:5:3: error: backoff.step: applies only to shape linear, found shape exponential [RP026] (add 'shape: linear', or use 'multiplier' for an exponential backoff)"),
        ("backoff:\n  shape: linear\n  initial: 1s\n  step: -1s\n",
         "p.yaml:6:9: error: backoff.step: expected a duration such as 250ms, 10s or 1m30s, found '-1s': a negative duration [RP014]"),
    ])
    func badBackoff(_ body: String, _ expected: String) {
        #expect(Self.errors(body) == [expected])
    }

    @Test("Presets give their numbers; explicit keys override them")
    func presets() throws {
        #expect(try Self.load("budget:\n  preset: aws-standard\n").budget?.capacity == 500)
        let standard = try #require(try Self.load("budget:\n  preset: aws-standard\n").budget)
        #expect([standard.capacity, standard.retryCost, standard.timeoutRetryCost, standard.throttlingRetryCost, standard.tokenBucket?.successRefund] == [500, 5, 10, 5, 1])
        let new = try #require(try Self.load("budget:\n  preset: aws-standard-2026\n").budget)
        #expect([new.capacity, new.retryCost, new.timeoutRetryCost, new.throttlingRetryCost, new.tokenBucket?.successRefund] == [500, 14, 14, 5, 1])
        #expect(new.throttlingErrors == [.status429])
        #expect(new.preset == "aws-standard-2026")
        let overridden = try #require(try Self.load("budget:\n  preset: aws-standard-2026\n  capacity: 100\n  retry_cost: 20\n").budget)
        // Overriding retry_cost keeps the preset's throttling cost.
        #expect([overridden.capacity, overridden.retryCost, overridden.timeoutRetryCost, overridden.throttlingRetryCost] == [100, 20, 14, 5])
        let grpc = try #require(try Self.load("budget:\n  preset: grpc\n  max_tokens: 10\n  token_ratio: 0.1\n").budget)
        #expect(grpc == .grpc(maxTokens: 10, tokenRatioThousandths: 100, location: grpc.location))
        #expect(try Self.load("budget:\n  preset: grpc\n  max_tokens: 1000\n  token_ratio: 1000\n").budget?.grpcThrottling?.tokenRatio == 1_000_000)
    }

    @Test("Without a preset, throttling costs what any retry costs unless stated; throttling_errors takes declared kinds")
    func plainBudget() throws {
        let plain = try #require(try Self.load("budget:\n  capacity: 50\n  retry_cost: 7\n").budget)
        #expect(plain.throttlingRetryCost == 7)
        #expect(plain.timeoutRetryCost == 10)
        let custom = try #require(try Self.load(
            "errors:\n  rate_limited:\nbudget:\n  retry_cost: 14\n  throttling_retry_cost: 5\n  throttling_errors: [rate_limited, status_429]\n").budget)
        #expect(custom.throttlingRetryCost == 5)
        #expect(custom.throttlingErrors == [SDKError.Kind(rawValue: "rate_limited"), .status429])
    }

    @Test("Bad budget values are located errors", arguments: [
        ("budget:\n  preset: aws-classic\n",
         "p.yaml:4:11: error: budget.preset: expected aws-standard, aws-standard-2026, grpc, finagle, envoy or gateway-api, found the string 'aws-classic' [RP013]"),
        ("budget:\n  preset: grpc\n",
         "p.yaml:4:3: error: missing required key 'max_tokens' in 'budget' (gRPC throttling has no default) [RP012] (gRPC's retryThrottling states maxTokens and tokenRatio, for example max_tokens: 10, token_ratio: 0.1)"),
        ("budget:\n  preset: grpc\n  max_tokens: 0\n  token_ratio: 0.1\n",
         "p.yaml:5:15: error: budget.max_tokens: expected an integer from 1 to 1000, found the integer 0 [RP019]"),
        ("budget:\n  preset: grpc\n  max_tokens: 10\n  token_ratio: 0.1234\n",
         "p.yaml:6:16: error: budget.token_ratio: expected a number above 0 with at most three decimals (gRPC's precision), found the number 0.1234 [RP013] (write 0.123)"),
        ("budget:\n  preset: grpc\n  max_tokens: 10\n  token_ratio: 0\n",
         "p.yaml:6:16: error: budget.token_ratio: expected a number above 0 with at most three decimals (gRPC's precision), found the integer 0 [RP013] (write 0.001)"),
        ("budget:\n  preset: grpc\n  max_tokens: 10\n  token_ratio: 1001\n",
         "p.yaml:6:16: error: budget.token_ratio: expected a number from 0 to 1000, found the integer 1001 [RP019]"),
        ("budget:\n  preset: grpc\n  max_tokens: 10\n  token_ratio: 0.1\n  capacity: 5\n",
         "p.yaml:7:3: error: budget.capacity: does not apply to preset grpc (every failure costs one token, every success returns token_ratio) [RP026] (set max_tokens and token_ratio, or choose preset aws-standard to use capacity)"),
        ("budget:\n  capacity: 5\n  max_tokens: 10\n",
         "p.yaml:5:3: error: budget.max_tokens: applies only to preset grpc, found a token-bucket budget [RP026] (write 'preset: grpc' for gRPC retry throttling, or use capacity and the retry costs)"),
        ("budget:\n  preset: aws-standard\n  token_ratio: 0.5\n",
         "p.yaml:5:3: error: budget.token_ratio: applies only to preset grpc, found preset aws-standard [RP026] (write 'preset: grpc' for gRPC retry throttling, or use capacity and the retry costs)"),
        ("budget:\n  throttling_retry_cost: -1\n",
         "p.yaml:4:26: error: budget.throttling_retry_cost: expected an integer from 0 to 1000000, found the integer -1 [RP019]"),
        ("budget:\n  throttling_errors: [rate_limitd]\n",
         "p.yaml:4:23: error: budget.throttling_errors: expected a standard error kind or one declared under 'errors', found 'rate_limitd' [RP016] (declare it under 'errors' or use one of no_fill, network_error, status_429, status_5xx, timeout, internal_error, invalid_placement, unauthorized, not_found, cancelled, decoding_failed)"),
        ("budget:\n  throttling_errors: status_429\n",
         "p.yaml:4:22: error: budget.throttling_errors: expected a list of error kinds, found the string 'status_429' [RP011]"),
    ])
    func badBudget(_ body: String, _ expected: String) {
        #expect(Self.errors(body).first == expected)
    }

    @Test("preset grpc without either key names both")
    func grpcNeedsBoth() {
        #expect(Self.errors("budget:\n  preset: grpc\n").count == 2)
    }
}
