import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import Testing

/// gRPC statuses cross between service configs, Envoy, Istio and policies
/// as themselves: no HTTP status stands in for them.
@Suite("gRPC statuses in import and export")
struct GRPCStatusInteropTests {
    static func importGRPC(_ json: String) throws -> ImportedPolicy {
        try Importer.importPolicy(bytes: Array(json.utf8), path: "config.json", from: .grpc)
    }

    /// The gRPC statuses `policy` retries on a first attempt of a GET.
    static func retried(_ policy: Policy) -> [GRPCStatusCode] {
        let decider = RetryDecider(policy: policy.withoutBudgetForTests)
        return GRPCStatusCode.allCases.filter { decider.decide(DecisionInput(outcome: .grpc($0), attempt: 1)).isRetry }
    }

    static let config = #"""
        {"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s",
          "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED", "ABORTED"]}}]}
        """#

    @Test("retryableStatusCodes import as grpc rules retrying exactly those codes, and no HTTP status")
    func importsCodes() throws {
        let imported = try Self.importGRPC(Self.config)
        #expect(imported.warnings.isEmpty, "\(imported.warnings)")
        let policy = imported.policy
        #expect(Self.retried(policy) == [.resourceExhausted, .aborted, .unavailable])
        #expect(policy.rules.allSatisfy { $0.statuses.isEmpty && $0.transports.isEmpty })
        let decider = RetryDecider(policy: policy)
        #expect(!decider.decide(DecisionInput(outcome: .status(503))).isRetry)
        #expect(decider.decide(DecisionInput(outcome: .grpc(.notFound))).error?.kind == .notFound)
        #expect(decider.decide(DecisionInput(outcome: .grpc(.ok))).action == .success)
    }

    @Test("export writes the codes of the policy's grpc rules back, without a warning; import then export then import keeps them")
    func roundTrip() throws {
        let first = try Self.importGRPC(Self.config)
        let export = GRPCExporter.export(first.policy, file: "p.yaml")
        #expect(export.warnings.isEmpty, "\(export.warnings)")
        #expect(export.text.contains(#""retryableStatusCodes": ["RESOURCE_EXHAUSTED", "ABORTED", "UNAVAILABLE"]"#), "\(export.text)")
        let second = try Self.importGRPC(export.text)
        #expect(Self.retried(second.policy) == Self.retried(first.policy))
        #expect(PolicyDiff.compare(first.policy, second.policy).isIdentical)
    }

    @Test("a policy with HTTP rules only still exports through the mapping, with a warning saying what is lost")
    func approximation() throws {
        var policy = Policy(name: "http", attempts: 3, backoff: Backoff(initial: .milliseconds(100), max: .seconds(1), jitter: .full))
        policy.retryAfter = RetryAfterPolicy(honor: true, headers: [.init(name: "grpc-retry-pushback-ms", format: .milliseconds)])
        policy.rules = [Rule(statuses: [.code(429), .range(502...504)], error: .status5xx, action: .retry)]
        let export = GRPCExporter.export(policy, file: "p.yaml")
        #expect(export.text.contains(#""retryableStatusCodes": ["UNAVAILABLE"]"#), "\(export.text)")
        #expect(export.warnings.map(\.message).contains {
            $0.hasPrefix("the policy has no grpc rules: retryableStatusCodes UNAVAILABLE is guessed from its HTTP statuses")
                && $0.contains("which gRPC statuses it means is lost")
        }, "\(export.warnings)")
    }

    @Test("a policy with grpc rules and HTTP rules exports the grpc ones and warns about the others")
    func mixed() throws {
        var policy = try Self.importGRPC(Self.config).policy
        policy.rules.insert(Rule(statuses: [.code(503)], error: .status5xx, action: .retry), at: 0)
        let export = GRPCExporter.export(policy, file: "p.yaml")
        #expect(export.text.contains(#""retryableStatusCodes": ["RESOURCE_EXHAUSTED", "ABORTED", "UNAVAILABLE"]"#))
        #expect(export.warnings.map(\.message) == [
            "a gRPC service config retries gRPC statuses only; the policy's retries of HTTP status 503 are not exported (its grpc rules are)"
        ])
    }

    @Test("OK listed as retryable is a warning and not retried")
    func okListed() throws {
        let imported = try Self.importGRPC(Self.config.replacingOccurrences(of: #""ABORTED""#, with: #""OK""#))
        #expect(imported.warnings.map(\.message) == ["retryableStatusCodes lists OK, which ends a call successfully and is never retried; not imported"])
        #expect(Self.retried(imported.policy) == [.resourceExhausted, .unavailable])
    }

    @Test("every real gRPC service config keeps its codes through import, export and import")
    func realConfigurations() throws {
        var checked = 0
        for relative in try RealConfigurationTests.files() where relative.hasPrefix("grpc/") {
            let (_, policies) = RealConfigurationTests.outcome(of: try RealConfigurationTests.read(relative), as: .grpc)
            for imported in policies where imported.policy.hedging == nil && imported.policy.attempts > 1 {
                let export = GRPCExporter.export(imported.policy, file: "p.yaml")
                #expect(!export.warnings.contains { $0.feature == "rules" }, "\(relative) \(imported.name): \(export.warnings)")
                let again = try Self.importGRPC(export.text)
                #expect(Self.retried(again.policy) == Self.retried(imported.policy), "\(relative) \(imported.name)")
                #expect(!Self.retried(imported.policy).isEmpty, "\(relative) \(imported.name)")
                checked += 1
            }
        }
        #expect(checked > 10)
    }

    @Test("Envoy's gRPC retry_on values import as grpc rules and export back")
    func envoy() throws {
        let route = """
            retry_policy:
              retry_on: "unavailable,resource-exhausted,deadline-exceeded,5xx"
              num_retries: 2

            """
        let imported = try Importer.importPolicy(bytes: Array(route.utf8), path: "route.yaml", from: .envoy)
        #expect(Self.retried(imported.policy) == [.deadlineExceeded, .resourceExhausted, .unavailable])
        let decider = RetryDecider(policy: imported.policy)
        #expect(decider.decide(DecisionInput(outcome: .status(503))).isRetry)
        #expect(!decider.decide(DecisionInput(outcome: .grpc(.internal))).isRetry)
        let export = EnvoyExporter.export(imported.policy, file: "p.yaml")
        #expect(export.text.contains("retry_on: \"5xx,deadline-exceeded,resource-exhausted,unavailable\""), "\(export.text)")
        let again = try Importer.importPolicy(bytes: Array(export.text.utf8), path: "again.yaml", from: .envoy)
        #expect(Self.retried(again.policy) == Self.retried(imported.policy))
    }

    @Test("Istio's retryOn gRPC values import as grpc rules; a gRPC status Envoy has no condition for is a warning on export")
    func istio() throws {
        var policy = try Self.importGRPC(Self.config).policy
        policy.budget = nil
        let export = IstioExporter.export(policy, file: "p.yaml")
        #expect(export.text.contains("retryOn: \"resource-exhausted,unavailable\""), "\(export.text)")
        #expect(export.warnings.map(\.message).contains("Istio has a gRPC retry condition for CANCELLED, DEADLINE_EXCEEDED, INTERNAL, RESOURCE_EXHAUSTED and UNAVAILABLE only; gRPC ABORTED not retried"))
        let service = """
            apiVersion: networking.istio.io/v1
            kind: VirtualService
            metadata: {name: grpc}
            spec:
              hosts: [grpc]
              http:
                - route: [{destination: {host: grpc}}]
                  retries: {attempts: 2, retryOn: "cancelled,internal"}

            """
        let imported = try Importer.importPolicy(bytes: Array(service.utf8), path: "vs.yaml", from: .istio)
        #expect(Self.retried(imported.policy) == [.cancelled, .internal])
    }
}

extension Policy {
    /// The policy without its budget: the decisions above are about which
    /// statuses are retried, not about tokens.
    fileprivate var withoutBudgetForTests: Policy {
        var copy = self
        copy.budget = nil
        return copy
    }
}
