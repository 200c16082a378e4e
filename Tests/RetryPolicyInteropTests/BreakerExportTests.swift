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
}
