import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Ratio budgets as the loader reads and the writer writes them, with
/// the located error for each bad value.
@Suite struct RatioBudgetLoadingTests {
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

    @Test("Presets give the peers' numbers; explicit keys override them; keys alone take Finagle's")
    func presets() throws {
        #expect(try Self.load("budget:\n  preset: finagle\n").budget?.ratio == .finagle)
        #expect(try Self.load("budget:\n  preset: envoy\n").budget?.ratio == .envoy)
        let gateway = try #require(try Self.load("budget:\n  preset: gateway-api\n").budget)
        #expect(gateway.ratio == .gatewayAPI)
        #expect(gateway.preset == "gateway-api")
        #expect(gateway.style == .ratio)
        let overridden = try #require(try Self.load("budget:\n  preset: envoy\n  retry_percent: 12.5\n").budget?.ratio)
        #expect(overridden == RatioRetryBudget(permille: 125, minRetriesPerSecond: 3, window: .seconds(1)))
        let own = try #require(try Self.load("budget:\n  min_retries_per_second: 0\n  window: 30s\n").budget)
        #expect(own.ratio == RatioRetryBudget(permille: 200, minRetriesPerSecond: 0, window: .seconds(30)))
        #expect(own.preset == nil)
    }

    @Test("The writer's text loads back to the same budget", arguments: [
        "budget:\n  preset: finagle\n",
        "budget:\n  preset: envoy\n  min_retries_per_second: 0\n",
        "budget:\n  retry_percent: 0.5\n  min_retries_per_second: 1000000\n  window: 1500ms\n",
        "budget:\n  retry_percent: 1000\n  window: 60s\n",
    ])
    func roundTrip(_ body: String) throws {
        let policy = try Self.load(body)
        let text = try PolicyWriter.yaml(policy)
        let again = try PolicyLoader().loadPolicy(yaml: text, path: "again.yaml")
        #expect(again.budget?.ratio == policy.budget?.ratio)
        #expect(again.budget?.preset == policy.budget?.preset)
    }

    @Test("Bad ratio values and keys of other styles are located errors", arguments: [
        ("budget:\n  retry_percent: 12.25\n",
         "p.yaml:4:18: error: budget.retry_percent: expected a percentage from 0 to 1000 with at most one decimal, found the number 12.25 [RP013] (write 12.2)"),
        ("budget:\n  retry_percent: -1\n",
         "p.yaml:4:18: error: budget.retry_percent: expected a number from 0 to 1000, found the integer -1 [RP019]"),
        ("budget:\n  preset: finagle\n  min_retries_per_second: 1.5\n",
         "p.yaml:5:27: error: budget.min_retries_per_second: expected an integer from 0 to 1000000, found the number 1.5 [RP011]"),
        ("budget:\n  preset: finagle\n  window: 90s\n",
         "p.yaml:5:11: error: budget.window: expected a duration from 1s to 60s (Finagle's ttl range), found the string '90s' [RP019] (write 10s, the window Finagle and the Gateway API use)"),
        ("budget:\n  preset: gateway-api\n  capacity: 5\n",
         "p.yaml:5:3: error: budget.capacity: does not apply to a ratio budget (requests deposit, retries withdraw) [RP026] (set retry_percent, min_retries_per_second and window, or choose preset aws-standard or grpc to use capacity)"),
        ("budget:\n  preset: aws-standard\n  window: 10s\n",
         "p.yaml:5:3: error: budget.window: applies only to a ratio budget, found preset aws-standard [RP026] (choose preset finagle, envoy or gateway-api, or leave out preset for a ratio budget of your own)"),
    ])
    func badValues(_ body: String, _ expected: String) {
        #expect(Self.errors(body) == [expected])
    }

    @Test("The validator checks ratio budgets built in code")
    func validator() {
        var policy = Policy(name: "p", budget: .ratio(RatioRetryBudget(permille: 20_000, minRetriesPerSecond: -1, window: .milliseconds(10))))
        policy.rules = [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)]
        let problems = PolicyValidator.problems(of: policy).map(\.keyPath)
        #expect(problems.contains("budget.retry_percent"))
        #expect(problems.contains("budget.min_retries_per_second"))
        #expect(problems.contains("budget.window"))
    }
}
