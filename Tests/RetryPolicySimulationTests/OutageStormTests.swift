import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

@Suite("Outage storms")
struct OutageStormTests {
    @Test("a shared breaker cuts the load during an outage and records its open and half-open periods")
    func stormWithBreaker() throws {
        var policy = cleanPolicy().withBreaker(
            CircuitBreakerConfiguration(minimumCalls: 10, breakDuration: .seconds(5), halfOpenProbes: 2))
        policy.attempts = 4
        policy.timeouts = TimeoutBudget()
        let response = try ScriptedResponse.parse("503").get()
        let configuration = OutageStorm.Configuration(
            clients: 200, outage: .seconds(20), outageResponse: response, spread: .seconds(40), shared: true)
        let broken = OutageStorm.run(policy: policy, configuration: configuration)
        let plain = OutageStorm.run(policy: policy.withBreaker(nil), configuration: configuration)
        #expect(broken.outageRequests * 5 < plain.outageRequests, "\(broken.outageRequests) vs \(plain.outageRequests)")
        #expect((broken.failures[.circuitOpen] ?? 0) > 0)
        #expect(plain.breakerPeriods.isEmpty)
        let states = broken.breakerPeriods.map(\.state)
        #expect(states.first == .open)
        #expect(states.contains(.halfOpen))
        // Periods follow each other: each ends where the next starts.
        for (earlier, later) in zip(broken.breakerPeriods, broken.breakerPeriods.dropFirst()) {
            #expect(earlier.end != nil && earlier.end! <= later.start)
        }
        let svg = StormReport(policy: policy, storm: broken).svg
        #expect(svg.contains("breaker open from "))
        #expect(svg.contains("breaker half-open from"))
    }

    @Test("a storm without jitter is synchronised; a shared budget cuts the load")
    func storm() throws {
        var policy = cleanPolicy().withBreaker(nil)
        policy.attempts = 6
        policy.timeouts = TimeoutBudget()
        policy.backoff.jitter = .none
        let response = try ScriptedResponse.parse("503").get()
        let plain = OutageStorm.run(policy: policy, configuration: .init(clients: 100, outage: .seconds(60), outageResponse: response))
        #expect(plain.totalRequests == 600)
        #expect(plain.peak == 100)
        #expect(plain.failures[.attemptsExhausted] == 100)
        policy.budget = RetryBudgetConfiguration(capacity: 50, retryCost: 5)
        let budgeted = OutageStorm.run(policy: policy, configuration: .init(clients: 100, outage: .seconds(60), outageResponse: response, shared: true))
        #expect(budgeted.totalRequests == 110, "100 first attempts + 10 retries the budget pays for")
        #expect(budgeted.failures[.budgetExhausted] == 100, "90 stop at once, the 10 that retried stop on their next failure")
        let recovered = OutageStorm.run(policy: policy, configuration: .init(clients: 10, outage: .seconds(2), outageResponse: response))
        #expect(recovered.succeeded == 10)
    }
}
