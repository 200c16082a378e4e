import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

/// A ratio budget under a total outage, beside the token-bucket styles.
@Suite("Ratio budget storms")
struct RatioBudgetStormTests {
    /// 10,000 clients over 10 s (1,000 requests a second) sharing one
    /// budget, every attempt failing, up to 4 attempts each.
    static func storm(_ budget: RetryBudgetConfiguration?) throws -> OutageStorm {
        var policy = cleanPolicy().withBreaker(nil)
        policy.attempts = 4
        policy.timeouts = TimeoutBudget()
        policy.budget = budget
        let response = try ScriptedResponse.parse("503").get()
        return OutageStorm.run(
            policy: policy,
            configuration: .init(clients: 10_000, outage: .seconds(600), outageResponse: response, spread: .seconds(10), shared: true))
    }

    static func amplification(_ storm: OutageStorm) -> Double {
        Double(storm.totalRequests) / Double(storm.configuration.clients)
    }

    @Test("Finagle's 20 % and 10/s at 1,000 requests a second: at most 1.21x, plus the reserve of one window")
    func finagleBound() throws {
        let ratio = RatioRetryBudget.finagle
        let storm = try Self.storm(.ratio(ratio))
        let bound = ratio.amplificationBound(requestsPerSecond: 1000)
        #expect(abs(bound - 1.21) < 1e-9)
        // The run lasts about one window past the arrivals: the reserve of
        // that window (100 retries) may come on top of the rate bound.
        let slack = Double(ratio.reserve / RatioRetryBudget.retryCost) / 10_000
        let measured = Self.amplification(storm)
        #expect(measured <= bound + slack, "amplification \(measured)")
        // The budget binds: most failures stop on it rather than retrying.
        #expect(measured > 1.15, "amplification \(measured)")
        #expect((storm.failures[.budgetExhausted] ?? 0) > 5_000)
    }

    @Test("Beside the token buckets: each style's amplification over the same outage")
    func besideTokenBuckets() throws {
        let styles: [(String, RetryBudgetConfiguration?)] = [
            ("none", nil), ("aws-standard", .awsStandard), ("aws-standard-2026", .awsStandard2026),
            ("grpc 10/0.1", .grpc(maxTokens: 10, tokenRatioThousandths: 100)),
            ("finagle", .ratio(.finagle)), ("envoy", .ratio(.envoy)), ("gateway-api", .ratio(.gatewayAPI)),
        ]
        var amplification: [String: Double] = [:]
        for (name, budget) in styles { amplification[name] = Self.amplification(try Self.storm(budget)) }
        // Without a budget every client makes all 4 attempts.
        #expect(amplification["none"] == 4)
        // Token buckets stop after a fixed number of retries (500/5 = 100
        // for aws-standard, about 36 for 2026), whatever the traffic; a
        // ratio budget keeps a share of it.
        #expect(amplification["aws-standard"]! < 1.02)
        #expect(amplification["aws-standard-2026"]! < 1.01)
        for name in ["finagle", "envoy", "gateway-api"] {
            #expect(amplification[name]! > 1.1 && amplification[name]! <= 1.22, "\(name): \(amplification[name]!)")
        }
        let table = styles.map { "\($0.0): \(amplification[$0.0]!)" }.joined(separator: ", ")
        print("storm amplification at 1,000 requests/s, 4 attempts: \(table)")
    }
}
