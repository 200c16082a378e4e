import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

/// Adaptive mode under a total throttling outage: once the service
/// throttles, the shared limiter brings the send rate down to its minimum
/// (CUBIC cuts β of the rate on every throttle), where a retry budget
/// alone still lets every first try through.
@Suite("Outage storms with the adaptive rate limit")
struct AdaptiveStormTests {
    static func policy(rateLimit: Bool) -> Policy {
        var policy = cleanPolicy().withBreaker(nil)
        policy.timeouts = TimeoutBudget(total: .seconds(20))
        policy.budget = .awsStandard
        policy.rateLimit = rateLimit ? .aws : nil
        return policy
    }

    static let configuration = OutageStorm.Configuration(
        clients: 2_000, outage: .seconds(120), outageResponse: try! ScriptedResponse.parse("429").get(),
        spread: .seconds(120), shared: true)

    @Test("The send rate falls to the limiter's minimum during the outage; token buckets alone keep sending")
    func sendRateFalls() {
        let limited = OutageStorm.run(policy: Self.policy(rateLimit: true), configuration: Self.configuration)
        let buckets = OutageStorm.run(policy: Self.policy(rateLimit: false), configuration: Self.configuration)
        // From 30 s on, the limiter paces at 0.5 per second (a token every
        // 2 s, and a bucket of at most one): never more than two a second.
        let late = limited.load[30..<120]
        #expect(late.max() ?? 0 <= 2, "\(Array(late))")
        #expect(late.reduce(0, +) >= 40, "it still probes: about one attempt every 2 s")
        // The retry quota alone lets every first try through: about 16 a second.
        let unlimited = buckets.load[30..<120]
        #expect(unlimited.reduce(0, +) >= 90 * 12, "\(Array(unlimited))")
        #expect(limited.rateLimitWaits > 0)
        #expect(limited.outageRequests * 10 < buckets.outageRequests)
        // Requests that cannot be paced within their deadline fail without a request.
        #expect((limited.failures[.deadlineExceeded] ?? 0) > 1_000)
        let report = StormReport.run(policy: Self.policy(rateLimit: true), configuration: Self.configuration)
        #expect(report.text.contains("rate limit: "))
        #expect(report.text.contains("one shared rate limit"))
    }
}
