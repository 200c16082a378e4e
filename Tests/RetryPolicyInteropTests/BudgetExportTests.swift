import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// gRPC-style budgets export as exactly gRPC's retryThrottling; linear
/// backoff is never exported silently.
@Suite("Budget and backoff export")
struct BudgetExportTests {
    static let base = """
        version: 1
        name: svc
        attempts: 3
        backoff:
          initial: 100ms
          max: 1s
          multiplier: 2
          jitter: full
        retry_after:
          honor: true
          headers: [{name: grpc-retry-pushback-ms, format: milliseconds}]
        rules:
          - status: 503
            error: status_5xx
            action: retry

        """

    @Test("preset grpc exports as retryThrottling with the same numbers and no warning")
    func grpcExact() throws {
        let policy = try loadPolicy(Self.base + "budget:\n  preset: grpc\n  max_tokens: 7\n  token_ratio: 0.125\n", path: "svc.yaml")
        let result = GRPCExporter.export(policy, file: "svc.yaml")
        // Only the budget matters here (the rules lose POST and part of UNAVAILABLE).
        #expect(!result.warnings.contains { $0.feature.hasPrefix("budget") }, "\(result.warnings)")
        #expect(result.text.contains("\"retryThrottling\": {\n    \"maxTokens\": 7,\n    \"tokenRatio\": 0.125\n  }"), "\(result.text)")
        // And back: import reads it as the same gRPC throttling.
        let imported = try Importer.importPolicy(bytes: Array(result.text.utf8), path: "svc.json", from: .grpc)
        #expect(imported.policy.budget?.style == .grpc)
        #expect(imported.policy.budget?.capacity == 7000)
        #expect(imported.policy.budget?.grpcThrottling?.tokenRatio == 125)
        #expect(try policyFile(imported).contains("budget:\n  preset: grpc\n  max_tokens: 7\n  token_ratio: 0.125\n"))
    }

    @Test("a throttling cost gRPC cannot express is a located warning")
    func throttlingCostWarns() throws {
        let policy = try loadPolicy(Self.base + "budget:\n  preset: aws-standard-2026\n", path: "svc.yaml")
        let result = GRPCExporter.export(policy, file: "svc.yaml")
        let warning = try #require(result.warnings.first { $0.feature == "budget.throttling_retry_cost" })
        #expect(warning.location.line == 17)  // budget.preset
        #expect(warning.message == "gRPC charges every failure the same; throttling_retry_cost 5 differs from retry_cost 14")
    }

    @Test("linear backoff is a located warning at backoff.shape for every target")
    func linearWarns() throws {
        let yaml = Self.base.replacingOccurrences(of: "  multiplier: 2\n", with: "  shape: linear\n  step: 300ms\n")
        let policy = try loadPolicy(yaml, path: "svc.yaml")
        let results = [
            GRPCExporter.export(policy, file: "svc.yaml"), EnvoyExporter.export(policy, file: "svc.yaml"),
            IstioExporter.export(policy, file: "svc.yaml"),
        ]
        for result in results {
            let warning = try #require(result.warnings.first { $0.feature == "backoff.shape" }, "\(result.warnings)")
            #expect(warning.location.line == 7)
            #expect(warning.message.contains("has no linear backoff"))
        }
        let grpc = results[0].warnings.first { $0.feature == "backoff.shape" }
        #expect(grpc?.message == "gRPC has no linear backoff: it waits up to 100ms before retry 2, the policy (linear, step 300ms) up to 400ms")
    }

    @Test("linear backoff with step 0 is a constant delay, which gRPC expresses with multiplier 1")
    func constantLinearIsExact() throws {
        let yaml = Self.base.replacingOccurrences(of: "  multiplier: 2\n", with: "  shape: linear\n  step: 0s\n")
        let policy = try loadPolicy(yaml, path: "svc.yaml")
        let result = GRPCExporter.export(policy, file: "svc.yaml")
        #expect(!result.warnings.contains { $0.feature.hasPrefix("backoff") }, "\(result.warnings)")
        #expect(result.text.contains("\"backoffMultiplier\": 1"))
    }
}
