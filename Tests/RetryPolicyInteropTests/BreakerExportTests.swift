import RetryPolicyCore
import RetryPolicyInterop
import Testing

@Suite struct BreakerExportTests {
    static func policy(breaker: CircuitBreakerConfiguration?) -> Policy {
        var policy = Policy(
            name: "breaker", attempts: 3,
            rules: [Rule(statuses: [.code(503)], error: .status5xx, action: .retry)],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.breaker = breaker
        return policy
    }

    @Test("gRPC, Envoy and Istio have no breaker in a retry policy: exporting one warns, exporting none does not")
    func breakerIsWarnedAbout() {
        let with = Self.policy(breaker: CircuitBreakerConfiguration())
        let without = Self.policy(breaker: nil)
        for export in [GRPCExporter.export, EnvoyExporter.export, IstioExporter.export] {
            #expect(export(with, "p.yaml").warnings.filter { $0.feature == "breaker" }.count == 1)
            #expect(export(without, "p.yaml").warnings.allSatisfy { $0.feature != "breaker" })
            #expect(export(with, "p.yaml").text == export(without, "p.yaml").text)
        }
    }

    @Test("gRPC, Envoy and Istio get the policy's retries, not its hedging: exporting it warns at the section")
    func hedgingIsWarnedAbout() {
        var with = Self.policy(breaker: nil)
        with.hedging = HedgingPolicy(delay: .milliseconds(200))
        with.keyLocations["hedging"] = SourceLocation(file: "p.yaml", line: 7, column: 1)
        let without = Self.policy(breaker: nil)
        for export in [GRPCExporter.export, EnvoyExporter.export, IstioExporter.export] {
            let warnings = export(with, "p.yaml").warnings.filter { $0.feature == "hedging" }
            #expect(warnings.count == 1)
            #expect(warnings.first?.location.line == 7)
            #expect(export(without, "p.yaml").warnings.allSatisfy { $0.feature != "hedging" })
            #expect(export(with, "p.yaml").text == export(without, "p.yaml").text)
        }
    }

    @Test("gRPC, Envoy and Istio cannot pace attempts: exporting a rate_limit warns at the section")
    func rateLimitIsWarnedAbout() {
        var with = Self.policy(breaker: nil)
        with.rateLimit = .aws
        with.keyLocations["rate_limit"] = SourceLocation(file: "p.yaml", line: 9, column: 1)
        let without = Self.policy(breaker: nil)
        for export in [GRPCExporter.export, EnvoyExporter.export, IstioExporter.export] {
            let warnings = export(with, "p.yaml").warnings.filter { $0.feature == "rate_limit" }
            #expect(warnings.count == 1)
            #expect(warnings.first?.location.line == 9)
            #expect(export(without, "p.yaml").warnings.allSatisfy { $0.feature != "rate_limit" })
            #expect(export(with, "p.yaml").text == export(without, "p.yaml").text)
        }
    }
}
