import PropertyBased
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import Testing

@Suite("Export then import")
struct RoundTripPropertyTests {
    /// The formats that export a policy's retries. A Gateway API
    /// BackendTrafficPolicy holds the budget alone (its round trip is in
    /// GatewayAPIRetryConstraintTests).
    static let retryFormats = InteropFormat.exportable.filter { $0 != .gatewayAPI }

    @Test("inside each target's expressible subset, export has no warnings and import decides identically", arguments: retryFormats)
    func roundTripIsExact(format: InteropFormat) async throws {
        await propertyCheck(count: 40, input: Gen.int(in: 0...1_000_000)) { seed in
            do {
                let policy = try expressiblePolicy(seed: seed, format: format)
                let (export, imported, reloaded) = try roundTrip(policy, through: format)
                // Envoy's 0s for "no total timeout" keeps the behaviour but
                // turns off Envoy's 15s default, which export always says.
                let lost = export.warnings.filter { !(format == .envoy && policy.timeouts.total == nil && $0.feature == "timeouts.total") }
                #expect(lost.isEmpty, "seed \(seed): \(export.warnings)")
                #expect(imported.warnings.isEmpty, "seed \(seed): \(imported.warnings)")
                let comparison = PolicyDiff.compare(policy, reloaded)
                #expect(comparison.isIdentical, "seed \(seed) \(format): \(comparison.differences.prefix(3))\n\(export.text)")
                #expect(reloaded.timeouts.total == policy.timeouts.total || format == .envoy && policy.timeouts.total == nil)
                if let budget = policy.budget {
                    // gRPC throttling survives the trip exactly.
                    #expect(reloaded.budget?.style == budget.style)
                    #expect(reloaded.budget?.capacity == budget.capacity)
                    #expect(reloaded.budget?.rules == budget.rules)
                }
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }

    /// A lost feature injected into an expressible policy, and the
    /// warning feature that must name it.
    static let injections: [(name: String, formats: Set<InteropFormat>, feature: String, apply: @Sendable (inout Policy) -> Void)] = [
        ("attempts above 5", [.grpc], "attempts", { $0.attempts = 7 }),
        ("equal jitter", [.grpc, .envoy, .istio], "backoff.jitter", { $0.attempts = max($0.attempts, 2); $0.backoff.jitter = .equal }),
        ("per-attempt timeout", [.grpc], "timeouts.per_attempt", { $0.timeouts.perAttempt = .seconds(2) }),
        ("cooldown", [.grpc, .envoy, .istio], "retry_after.cooldown", { $0.retryAfter.cooldown = .wait }),
        ("POST not retried", [.grpc, .envoy, .istio], "idempotency", { $0.attempts = max($0.attempts, 2); $0.idempotency.retryableMethods.remove(.post) }),
        ("budget", [.envoy, .istio], "budget", { $0.budget = RetryBudgetConfiguration() }),
        ("timeout retries cost more", [.grpc], "budget.timeout_retry_cost", { $0.budget = RetryBudgetConfiguration(capacity: 100, retryCost: 5, timeoutRetryCost: 10) }),
        ("throttling retries cost less", [.grpc], "budget.throttling_retry_cost", { $0.budget = .awsStandard2026 }),
        ("linear backoff", [.grpc, .envoy, .istio], "backoff.shape", {
            $0.attempts = max($0.attempts, 3)
            $0.backoff = .linear(initial: .milliseconds(100), step: .milliseconds(300), max: .seconds(10), jitter: .full)
        }),
        ("HTTP-date Retry-After", [.envoy], "retry_after.headers", { $0.retryAfter = RetryAfterPolicy(honor: true, cap: .seconds(30), aboveCap: .ignore) }),
        ("pushback cap", [.grpc], "retry_after.cap", { $0.retryAfter.cap = .seconds(30) }),
        ("HTTP rules only", [.grpc], "rules", {
            $0.attempts = max($0.attempts, 2)
            $0.rules = [Rule(statuses: [.code(503)], error: .status5xx, action: .retry)]
        }),
        ("server delays", [.istio], "retry_after", { $0.retryAfter = RetryAfterPolicy(honor: true) }),
        ("multiplier 3", [.envoy, .istio], "backoff", { $0.attempts = max($0.attempts, 3); $0.backoff.growth = .exponential(multiplier: 3); $0.backoff.max = $0.backoff.initial * 100 }),
        ("decoding failures retried", [.grpc, .envoy, .istio], "rules", {
            $0.attempts = max($0.attempts, 2)
            $0.rules.insert(Rule(transports: [.decoding, .invalidURL], error: .networkError, action: .retry), at: 0)
        }),
        ("one status of a gRPC code", [.grpc, .envoy, .istio], "rules", {
            $0.attempts = max($0.attempts, 2)
            $0.rules.insert(Rule(statuses: [.code(503)], error: .status5xx, action: .retry), at: 0)
            $0.rules.insert(Rule(transports: [.connectionRefused], error: .networkError, action: .retry), at: 0)
            $0.rules.insert(Rule(statuses: [.code(502), .code(504), .code(429)], error: .status5xx, action: .stop), at: 0)
            $0.rules.insert(Rule(transports: [.dns, .tls, .offline, .connectionLost, .timeout], error: .networkError, action: .stop), at: 0)
        }),
    ]

    @Test("outside the subset, the warnings name each lost feature", arguments: retryFormats)
    func lostFeaturesAreNamed(format: InteropFormat) async throws {
        let cases = Self.injections.filter { $0.formats.contains(format) }
        await propertyCheck(count: 30, input: Gen.int(in: 0...1_000_000), Gen.int(in: 0...10_000)) { seed, which in
            do {
                var policy = try expressiblePolicy(seed: seed, format: format)
                let injection = cases[which % cases.count]
                injection.apply(&policy)
                let export = try #require(format.handler.export(policy, file: "p.yaml"))
                #expect(export.warnings.contains { $0.feature == injection.feature },
                        "seed \(seed) \(format) \(injection.name): \(export.warnings.map(\.feature))")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}

@Suite("gRPC tokenRatio decimals")
struct GRPCTokenRatioTests {
    func imported(_ ratio: String) throws -> ImportedPolicy {
        let json = #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": 10, "tokenRatio": "# + ratio + "}}"
        return try Importer.importPolicy(bytes: Array(json.utf8), path: "config.json", from: .grpc)
    }

    @Test("three decimals are read as written, even where a Double is a hair below them")
    func threeDecimals() throws {
        // 2.042 * 1000 is 2041.9999999999998 as a Double; 0.001, 0.1 and 0.57 likewise miss by a hair.
        for (text, thousandths) in [("2.042", 2042), ("0.001", 1), ("0.1", 100), ("0.57", 570), ("1", 1000)] {
            let policy = try imported(text)
            #expect(policy.budget?.grpcThrottling?.tokenRatio == thousandths, "\(text)")
            #expect(policy.warnings.isEmpty, "\(text): \(policy.warnings)")
        }
    }

    @Test("a fourth decimal is cut, with a warning, as gRPC cuts it")
    func fourthDecimal() throws {
        let policy = try imported("0.1239")
        #expect(policy.budget?.grpcThrottling?.tokenRatio == 123)
        #expect(policy.warnings.map(\.description).contains { $0.contains("three decimals") })
    }
}
