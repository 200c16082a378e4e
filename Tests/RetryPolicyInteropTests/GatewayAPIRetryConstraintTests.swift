import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// GEP-3388's BackendTrafficPolicy `retryConstraint` imports as a ratio
/// budget and exports from one.
@Suite("Gateway API retry constraint")
struct GatewayAPIRetryConstraintTests {
    static func file(_ constraint: String) -> String {
        """
        apiVersion: gateway.networking.x-k8s.io/v1alpha1
        kind: XBackendTrafficPolicy
        metadata:
          name: reviews
        spec:
          targetRefs:
          - {group: "", kind: Service, name: reviews}
          retryConstraint:
        \(constraint)
        """
    }

    static func importGateway(_ text: String) throws -> ImportedPolicy {
        try Importer.importPolicy(bytes: Array(text.utf8), path: "budget.yaml", from: .gatewayAPI)
    }

    @Test("percent, interval and minRetryRate become the ratio budget")
    func importsTheNumbers() throws {
        let imported = try Self.importGateway(Self.file("""
                budget: {percent: 25, interval: 30s}
                minRetryRate: {count: 20, interval: 2s}
            """))
        let ratio = try #require(imported.policy.budget?.ratio)
        #expect(ratio.permille == 250 && ratio.minRetriesPerSecond == 10 && ratio.window == .seconds(30))
        // targetRefs is reported as not imported.
        let warning = try #require(imported.warnings.first { $0.message.hasPrefix("spec.targetRefs") })
        #expect(warning.location.line == 6)
    }

    @Test("GEP-3388's defaults fill an empty retryConstraint")
    func defaults() throws {
        let imported = try Self.importGateway(Self.file("    {}"))
        let ratio = try #require(imported.policy.budget?.ratio)
        #expect(ratio.permille == 200 && ratio.minRetriesPerSecond == 10 && ratio.window == .seconds(10))
    }

    @Test("a rate that is not whole retries a second is rounded with a warning")
    func fractionalRate() throws {
        let imported = try Self.importGateway(Self.file("    minRetryRate: {count: 5, interval: 2s}"))
        #expect(imported.policy.budget?.ratio?.minRetriesPerSecond == 3)
        let warning = try #require(imported.warnings.first { $0.feature == "budget.min_retries_per_second" })
        #expect(warning.message == "minRetryRate 5 per 2s is 2.5 a second; the policy counts whole retries a second: 3")
    }

    @Test("a malformed retryConstraint is a located error with a suggestion")
    func malformed() throws {
        let percent = try #require(throws: InteropError.self) {
            try Self.importGateway(Self.file("    budget: {percent: 120}"))
        }
        let diagnostic = try #require(percent.diagnostics.first)
        #expect(diagnostic.location.file == "budget.yaml" && diagnostic.location.line == 9 && diagnostic.location.column == 23)
        #expect(diagnostic.message == "retryConstraint.budget.percent: expected a whole percentage from 0 to 100, found 120")
        #expect(diagnostic.suggestion == "write a percentage such as 20")
        let interval = try #require(throws: InteropError.self) {
            try Self.importGateway(Self.file("    budget: {interval: soon}"))
        }
        #expect(interval.diagnostics.first?.message.hasPrefix("retryConstraint.budget.interval: expected a positive duration") == true)
        let unknown = try #require(throws: InteropError.self) { try Self.importGateway(Self.file("    budgets: {}")) }
        #expect(unknown.diagnostics.first?.message == "spec.retryConstraint: expected budget or minRetryRate, found budgets")
        #expect(unknown.diagnostics.first?.location.line == 9)
    }

    @Test("a BackendTrafficPolicy without retryConstraint is refused with what it holds")
    func noConstraint() throws {
        let text = Self.file("    {}").replacingOccurrences(of: "  retryConstraint:\n    {}", with: "  sessionPersistence: {type: Header}")
        let error = try #require(throws: InteropError.self) { try Self.importGateway(text) }
        #expect(error.diagnostics.first?.message == "expected spec.retryConstraint, found targetRefs, sessionPersistence")
    }

    static let policy = """
        version: 1
        name: reviews
        attempts: 3
        budget:
          retry_percent: 30
          min_retries_per_second: 4
          window: 20s
        rules:
          - status: 503
            error: status_5xx
            action: retry

        """

    @Test("export writes an XBackendTrafficPolicy, lists the rest as lost, and import reads the numbers back")
    func roundTrip() throws {
        let policy = try loadPolicy(Self.policy, path: "reviews.yaml")
        let exported = try #require(InteropFormat.gatewayAPI.handlerExport(policy))
        #expect(exported.text.contains("""
              retryConstraint:
                budget:
                  percent: 30
                  interval: "20s"
                minRetryRate:
                  count: 4
                  interval: "1s"

            """), "\(exported.text)")
        let lost = try #require(exported.warnings.first { $0.feature == "rules" })
        #expect(lost.message.contains("HTTPRoute rule's retry (another object): not exported"))
        let imported = try Importer.importPolicy(bytes: Array(exported.text.utf8), path: "out.yaml", from: .gatewayAPI)
        let ratio = try #require(imported.policy.budget?.ratio)
        #expect(ratio.permille == 300 && ratio.minRetriesPerSecond == 4 && ratio.window == .seconds(20))
    }

    @Test("a fractional or too large percentage is a located export warning")
    func percentWarnings() throws {
        let half = try loadPolicy(Self.policy.replacingOccurrences(of: "retry_percent: 30", with: "retry_percent: 12.5"), path: "reviews.yaml")
        let result = try #require(InteropFormat.gatewayAPI.handlerExport(half))
        let warning = try #require(result.warnings.first { $0.feature == "budget.retry_percent" })
        #expect(warning.location.line == 5)
        #expect(warning.message == "budget.percent is a whole number; the policy's 12.5 is exported as 13")
        #expect(result.text.contains("percent: 13\n"))
    }
}

extension InteropFormat {
    func handlerExport(_ policy: Policy) -> ExportResult? {
        InteropRegistry.handlers.first { $0.format == self }?.export(policy, file: "reviews.yaml")
    }
}
