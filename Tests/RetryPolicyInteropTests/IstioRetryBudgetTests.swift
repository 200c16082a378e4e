import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// Istio's retry budget is a DestinationRule's `trafficPolicy.retryBudget`:
/// imported beside the VirtualService that routes to its host, exported
/// as a DestinationRule after the route.
@Suite("Istio retry budget")
struct IstioRetryBudgetTests {
    static func file(budget: String, host: String = "reviews") -> String {
        """
        apiVersion: networking.istio.io/v1
        kind: VirtualService
        metadata:
          name: reviews-route
        spec:
          hosts: [reviews]
          http:
          - route:
            - destination:
                host: reviews
            retries:
              attempts: 2
              retryOn: 5xx
        ---
        apiVersion: networking.istio.io/v1
        kind: DestinationRule
        metadata:
          name: reviews-budget
        spec:
          host: \(host)
          trafficPolicy:
            retryBudget:
        \(budget)
        """
    }

    static func importIstio(_ text: String) throws -> ImportedPolicy {
        try Importer.importPolicy(bytes: Array(text.utf8), path: "mesh.yaml", from: .istio)
    }

    @Test("the DestinationRule of the route's host gives its retryBudget, with the concurrency warning")
    func importsTheBudget() throws {
        let imported = try Self.importIstio(Self.file(budget: "      percent: 12.5\n      minRetryConcurrency: 7\n"))
        let ratio = try #require(imported.policy.budget?.ratio)
        #expect(ratio.permille == 125 && ratio.minRetriesPerSecond == 7 && ratio.window == .seconds(1))
        let warning = try #require(imported.warnings.first { $0.feature == "budget" })
        #expect(warning.location.line == 23)
        #expect(warning.message.hasPrefix("Istio (through Envoy's retry_budget) caps retries in flight (7 or 12.5 % of active requests"))
    }

    @Test("Istio's defaults fill a retryBudget that leaves its fields out")
    func defaults() throws {
        let imported = try Self.importIstio(Self.file(budget: "      {}\n"))
        let ratio = try #require(imported.policy.budget?.ratio)
        #expect(ratio.permille == 200 && ratio.minRetriesPerSecond == 3)
    }

    @Test("a rule for another host gives no budget")
    func otherHost() throws {
        let imported = try Self.importIstio(Self.file(budget: "      percent: 30\n", host: "ratings.prod.svc.cluster.local"))
        #expect(imported.policy.budget == nil)
    }

    @Test("a percentage out of range is a located error with a suggestion")
    func percentOutOfRange() throws {
        let error = try #require(throws: InteropError.self) {
            try Self.importIstio(Self.file(budget: "      percent: 150\n      minRetryConcurrency: 5\n"))
        }
        let diagnostic = try #require(error.diagnostics.first)
        #expect(diagnostic.location.file == "mesh.yaml" && diagnostic.location.line == 23 && diagnostic.location.column == 16)
        #expect(diagnostic.message == "trafficPolicy.retryBudget.percent: expected a percentage from 0 to 100, found 150")
        #expect(diagnostic.suggestion == "write a percentage such as 20")
    }

    @Test("a retryBudget that is not a mapping, or a floor that is not a number, is a located error")
    func malformed() throws {
        let scalar = try #require(throws: InteropError.self) { try Self.importIstio(Self.file(budget: "        20\n")) }
        #expect(scalar.diagnostics.first?.location.line == 23)
        let floor = try #require(throws: InteropError.self) {
            try Self.importIstio(Self.file(budget: "      minRetryConcurrency: many\n"))
        }
        #expect(floor.diagnostics.first?.location.line == 23)
        #expect(floor.diagnostics.first?.message.contains("trafficPolicy.retryBudget.minRetryConcurrency") == true)
    }

    @Test("budgetInterval and a subset's own budget are warned about, not read")
    func lostFields() throws {
        var text = Self.file(budget: "      percent: 20\n      budgetInterval: 10s\n")
        text += "  subsets:\n  - name: v2\n    trafficPolicy:\n      retryBudget:\n        percent: 50\n"
        let imported = try Self.importIstio(text)
        #expect(imported.policy.budget?.ratio?.permille == 200)
        let interval = try #require(imported.warnings.first { $0.feature == "budget.window" })
        #expect(interval.location.line == 24)
        #expect(interval.message.hasPrefix("trafficPolicy.retryBudget.budgetInterval 10s counts the requests of that interval"))
        let subset = try #require(imported.warnings.first { $0.message.hasPrefix("subset v2's own trafficPolicy.retryBudget") })
        #expect(subset.location.line == 29)
    }

    static let policy = """
        version: 1
        name: reviews
        attempts: 3
        budget:
          retry_percent: 12.5
          min_retries_per_second: 4
          window: 10s
        rules:
          - status: 503
            error: status_5xx
            action: retry

        """

    @Test("export writes a DestinationRule after the route, and import reads the same numbers back")
    func roundTrip() throws {
        let exported = IstioExporter.export(try loadPolicy(Self.policy, path: "reviews.yaml"), file: "reviews.yaml")
        #expect(exported.text.contains("""
            ---
            apiVersion: "networking.istio.io/v1"
            kind: "DestinationRule"
            metadata:
              name: "reviews"
            spec:
              host: "reviews"
              trafficPolicy:
                retryBudget:
                  percent: 12.5
                  minRetryConcurrency: 4

            """), "\(exported.text)")
        let warning = try #require(exported.warnings.first { $0.feature == "budget" })
        #expect(warning.location.line == 5)
        #expect(warning.message.contains("the window and the rate are lost; its spec.host is the policy's name reviews"))
        #expect(!warning.message.contains("by hand"))
        let imported = try Importer.importPolicy(bytes: Array(exported.text.utf8), path: "reviews.istio.yaml", from: .istio)
        let ratio = try #require(imported.policy.budget?.ratio)
        #expect(ratio.permille == 125 && ratio.minRetriesPerSecond == 4)
        #expect(imported.policy.attempts == 3)
        // Exported again, the DestinationRule's budget is the same.
        let again = IstioExporter.export(imported.policy, file: "reviews.istio.yaml")
        #expect(again.text.contains("    retryBudget:\n      percent: 12.5\n      minRetryConcurrency: 4\n"), "\(again.text)")
    }

    @Test("a policy without a ratio budget writes the route alone")
    func noBudgetNoRule() throws {
        let yaml = Self.policy.replacingOccurrences(of: "budget:\n  retry_percent: 12.5\n  min_retries_per_second: 4\n  window: 10s\n", with: "")
        let exported = IstioExporter.export(try loadPolicy(yaml, path: "reviews.yaml"), file: "reviews.yaml")
        #expect(!exported.text.contains("DestinationRule") && !exported.text.contains("---"))
    }
}

extension IstioRetryBudgetTests {
    @Test("a retry_percent over 100 is exported as Istio's 100, with a located warning")
    func percentOver100() throws {
        let yaml = Self.policy.replacingOccurrences(of: "retry_percent: 12.5", with: "retry_percent: 250")
        let exported = IstioExporter.export(try loadPolicy(yaml, path: "reviews.yaml"), file: "reviews.yaml")
        #expect(exported.text.contains("      percent: 100\n"), "\(exported.text)")
        let warning = try #require(exported.warnings.first { $0.feature == "budget.retry_percent" })
        #expect(warning.location.line == 5)
        #expect(warning.message == "Istio's retryBudget.percent is at most 100; the policy's 250 is exported as 100")
    }
}
