import Benchmark
import RetryPolicyCore
import RetryPolicySimulation
import RetryPolicyYAML

/// A total outage per budget style: 10,000 clients over 10 s (1,000
/// requests a second) sharing one decider, every attempt answered 503, up
/// to 4 attempts each within 20 s, the storm the ratio budget tests run
/// (for `adaptive`, every attempt answered 429, the throttling its rate
/// limiter slows down for). Beside the
/// wall clock and the allocations, each reports the storm's amplification
/// (attempts per request, in thousandths: 1210 is 1.21x), which does not
/// depend on the machine.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident, BudgetStorm.amplification, BudgetStorm.refused, BudgetStorm.paced],
        warmupIterations: 0,
        maxDuration: .seconds(2),
        maxIterations: 5
    )
    for (name, budget) in BudgetStorm.styles {
        let policy = BudgetStorm.policy(budget)
        // The adaptive limiter acts on throttling: its outage answers 429.
        let outage = try! ScriptedResponse.parse(name == "adaptive" ? "429" : "503").get()
        let configuration = OutageStorm.Configuration(
            clients: BudgetStorm.clients, outage: .seconds(600), outageResponse: outage, spread: .seconds(10), shared: true)
        Benchmark("budget-storm.\(name)") { benchmark in
            let storm = OutageStorm.run(policy: policy, configuration: configuration)
            benchmark.measurement(BudgetStorm.amplification, storm.totalRequests * 1000 / BudgetStorm.clients)
            benchmark.measurement(BudgetStorm.refused, storm.failures[.budgetExhausted] ?? 0)
            benchmark.measurement(BudgetStorm.paced, storm.failures[.deadlineExceeded] ?? 0)
            blackHole(storm)
        }
    }
}

enum BudgetStorm {
    static let clients = 10_000

    static let amplification = BenchmarkMetric.custom("amplification (x1000)", polarity: .prefersSmaller, useScalingFactor: false)
    static let refused = BenchmarkMetric.custom("refused by the budget", polarity: .prefersSmaller, useScalingFactor: false)
    static let paced = BenchmarkMetric.custom("out of time", polarity: .prefersSmaller, useScalingFactor: false)

    /// Each style's `budget` (and `rate_limit`) lines.
    static let styles: [(String, String)] = [
        ("none", ""),
        ("aws-standard", "budget: {preset: aws-standard}\n"),
        ("grpc", "budget: {preset: grpc, max_tokens: 10, token_ratio: 0.1}\n"),
        ("finagle", "budget: {preset: finagle}\n"),
        ("envoy", "budget: {preset: envoy}\n"),
        ("gateway-api", "budget: {preset: gateway-api}\n"),
        ("adaptive", "budget: {preset: aws-standard}\nrate_limit: adaptive\n"),
    ]

    /// 429 (a throttling error), every 5xx and lost connections retried,
    /// 4 attempts, no breaker.
    static func policy(_ budget: String) -> Policy {
        let yaml = """
            version: 1
            name: storm
            attempts: 4
            backoff: {initial: 1s, max: 10s, multiplier: 2, jitter: full}
            timeouts: {total: 20s}
            idempotency: {methods: [GET]}
            rules:
              - {status: [429], error: status_429, action: retry}
              - {status: ["5xx"], error: status_5xx, action: retry}
              - {transport: [timeout, connection_lost], error: timeout, action: retry}
            default: {error: network_error, action: stop}

            """ + budget
        return try! PolicyLoader().loadPolicy(yaml: yaml, path: "storm.yaml")
    }
}
