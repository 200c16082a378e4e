import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// Envoy's retry budget is a cluster's `circuit_breakers`: exported with
/// the route as a bootstrap that holds both, imported beside the route
/// that sends to the cluster, or from a file of clusters alone.
@Suite("Envoy retry budget")
struct EnvoyRetryBudgetTests {
    static let policy = """
        version: 1
        name: mesh
        attempts: 3
        backoff: {initial: 50ms, max: 1s, multiplier: 2, jitter: full}
        timeouts: {per_attempt: 1s, total: 5s}
        rules:
          - {status: [502, 503, 504], error: status_5xx, action: retry}
        default: {error: internal_error, action: stop}

        """

    static func importEnvoy(_ text: String, path: String = "envoy.yaml", selection: String? = nil) throws -> ImportedPolicy {
        try Importer.importPolicy(bytes: Array(text.utf8), path: path, from: .envoy, selection: selection)
    }

    static func refusal(_ text: String) -> Diagnostic? {
        do throws(InteropError) {
            _ = try Importer.importPolicy(bytes: Array(text.utf8), path: "envoy.yaml", from: .envoy)
            return nil
        } catch {
            return error.diagnostics.first
        }
    }

    @Test("a ratio budget exports as the cluster's retry_budget beside the route, and imports back with the same numbers")
    func exportRoundTrips() throws {
        let policy = try loadPolicy(Self.policy + "budget: {retry_percent: 12.5, min_retries_per_second: 7, window: 1s}\n", path: "mesh.yaml")
        let result = EnvoyExporter.export(policy, file: "mesh.yaml")
        #expect(result.text.contains("""
              clusters:
                - name: "mesh"
                  circuit_breakers:
                    thresholds:
                      - priority: "DEFAULT"
                        retry_budget:
                          budget_percent:
                            value: 12.5
                          min_retry_concurrency: 7
            """), "\(result.text)")
        #expect(result.text.contains("\"@type\": \"type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\""))
        // A 1s window is the envoy preset's mapping: the concurrency warning
        // and the skeleton's, no lost window.
        let budgetWarnings = result.warnings.filter { $0.feature.hasPrefix("budget") }
        #expect(budgetWarnings.count == 2, "\(budgetWarnings)")
        #expect(budgetWarnings.contains { $0.message.contains("caps retries in flight") })
        #expect(
            budgetWarnings.contains {
                $0.message.hasPrefix("the export is a bootstrap skeleton") && $0.message.contains("cluster \"mesh\" has no endpoints")
            })
        #expect(!budgetWarnings.contains { $0.message.contains("window is lost") })

        let imported = try Self.importEnvoy(result.text, path: "mesh.yaml")
        let ratio = try #require(imported.policy.budget?.ratio)
        #expect(ratio == RatioRetryBudget(permille: 125, minRetriesPerSecond: 7, window: .seconds(1)))
        #expect(imported.policy.attempts == 3 && imported.policy.timeouts.total == .seconds(5))
        // And out again: the same document.
        #expect(EnvoyExporter.export(imported.policy, file: "mesh.yaml").text == result.text)
    }

    @Test("a bootstrap's budget imports, exports and imports with the same numbers")
    func bootstrapRoundTrips() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/import/envoy-bootstrap.yaml")
        let first = try Self.importEnvoy(String(contentsOf: url, encoding: .utf8), path: "envoy-bootstrap.yaml")
        let exported = EnvoyExporter.export(first.policy, file: "envoy-bootstrap.yaml")
        let second = try Self.importEnvoy(exported.text, path: "envoy-bootstrap.yaml")
        #expect(first.policy.budget?.ratio == RatioRetryBudget(permille: 250, minRetriesPerSecond: 10, window: .seconds(1)))
        #expect(second.policy.budget?.ratio == first.policy.budget?.ratio)
    }

    @Test("a window Envoy cannot hold and a percentage above 100 are located warnings")
    func lossesWarn() throws {
        let policy = try loadPolicy(Self.policy + "budget:\n  preset: finagle\n  retry_percent: 250\n", path: "mesh.yaml")
        let result = EnvoyExporter.export(policy, file: "mesh.yaml")
        let percent = try #require(result.warnings.first { $0.feature == "budget.retry_percent" })
        #expect(percent.location.line == 11)
        #expect(percent.message == "Envoy's retry_budget.budget_percent is at most 100; the policy's 250 is exported as 100")
        let budget = try #require(result.warnings.first { $0.feature == "budget" })
        #expect(budget.message.contains("the policy's 10s window is lost"), "\(budget.message)")
        #expect(result.text.contains("value: 100\n"))
    }

    @Test("a token bucket stays a warning and the export stays the RouteAction")
    func tokenBucketStaysRoute() throws {
        let policy = try loadPolicy(Self.policy + "budget: {preset: aws-standard}\n", path: "svc.yaml")
        let result = EnvoyExporter.export(policy, file: "svc.yaml")
        #expect(result.text.hasPrefix("timeout: \"5s\"\nretry_policy:\n"))
        #expect(result.warnings.contains { $0.feature == "budget" && $0.message.contains("no token-bucket budget") })
    }

    static let clusters = """
        - name: first
          connect_timeout: 1s
          circuitBreakers:
            thresholds:
            - maxRetries: 2
              retryBudget:
                budgetPercent: {value: 10}
                minRetryConcurrency: 1
        - name: second
          circuit_breakers:
            thresholds:
            - priority: HIGH
              retry_budget: {budget_percent: {value: 90}}
            - priority: DEFAULT
              retry_budget: {min_retry_concurrency: 5}
        - name: plain
          circuit_breakers: {thresholds: [{max_retries: 3}]}

        """

    @Test("a file of clusters without routes imports each cluster's budget, with no retries and a warning")
    func clusterOnly() throws {
        let candidates = try Importer.candidates(ForeignFile(bytes: Array(Self.clusters.utf8), path: "clusters.yaml"), from: .envoy)
        #expect(candidates.map(\.name) == ["first", "second"])
        let first = try Self.importEnvoy(Self.clusters, path: "clusters.yaml", selection: "first")
        #expect(first.policy.budget?.ratio == RatioRetryBudget(permille: 100, minRetriesPerSecond: 1, window: .seconds(1)))
        #expect(first.policy.attempts == 1)
        let warning = try #require(first.warnings.first { $0.feature == "retry_policy" })
        #expect(warning.location.line == 1 && warning.location.column == 3)
        #expect(warning.message.hasPrefix("cluster first holds a retry budget but the file has no route: a route without retry_policy makes no retries"))
        // The DEFAULT priority's budget, Envoy's defaults for what it leaves out.
        let second = try Self.importEnvoy(Self.clusters, path: "clusters.yaml", selection: "second")
        #expect(second.policy.budget?.ratio == RatioRetryBudget(permille: 200, minRetriesPerSecond: 5, window: .seconds(1)))
        // Detected without --from.
        #expect(Importer.detectFormat(bytes: Array(Self.clusters.utf8), path: "clusters.yaml") == .envoy)
        // The policy written loads.
        _ = try loadPolicy(policyFile(first))
    }

    @Test("a malformed cluster budget is a located error")
    func malformedCluster() throws {
        let percent = try #require(Self.refusal("name: c\ncircuit_breakers:\n  thresholds:\n  - retry_budget: {budget_percent: {value: 150}}\n"))
        #expect(percent.location.line == 4 && percent.message.contains("expected a percentage from 0 to 100, found 150"), "\(percent)")
        let minimum = try #require(Self.refusal("name: c\ncircuit_breakers:\n  thresholds:\n  - retry_budget: {min_retry_concurrency: -1}\n"))
        #expect(minimum.location.line == 4 && minimum.message.contains("expected 0 to 1000000, found -1"), "\(minimum)")
        let shape = try #require(Self.refusal("name: c\ncircuit_breakers:\n  thresholds:\n  - retry_budget: 20\n"))
        #expect(shape.location.line == 4, "\(shape)")
        // Circuit breakers without a budget are not a retry configuration.
        let none = try #require(Self.refusal("name: c\ncircuit_breakers: {thresholds: [{max_retries: 3}]}\n"))
        #expect(none.id == "RPI04")
    }

    @Test("a cluster search is bounded in depth")
    func deepClusterIgnored() throws {
        var text = "name: c\ncircuit_breakers: {thresholds: [{retry_budget: {}}]}\n"
        for _ in 0..<20 { text = "a:\n" + text.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n") + "\n" }
        #expect(Self.refusal(text)?.id == "RPI04")
    }
}
