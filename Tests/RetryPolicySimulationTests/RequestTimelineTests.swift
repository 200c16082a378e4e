import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

@Suite("Requests on simulated time")
struct RequestTimelineTests {
    @Test("a scripted timeline follows the decider: server delay, jitter bounds, final success")
    func timeline() throws {
        let timeline = RequestTimeline.simulate(
            policy: cleanPolicy(),
            responses: try ScriptedResponse.parseList("503,429; Retry-After: 2,200").get(),
            seed: 7)
        #expect(timeline.attempts.count == 3)
        #expect(timeline.attempts[0].decision.delay == .zero ... .seconds(1))
        #expect(timeline.attempts[1].delay == .seconds(2))
        #expect(timeline.attempts[1].start == timeline.attempts[0].delay!)
        #expect(timeline.result.action == .success)
        #expect(timeline.elapsed == timeline.attempts[0].delay! + .seconds(2))
    }

    @Test("a timeout lasts per_attempt, so the deadline ends the request")
    func timelineDeadline() throws {
        var policy = cleanPolicy()
        policy.attempts = 10
        let timeline = RequestTimeline.simulate(policy: policy, responses: [try ScriptedResponse.parse("timeout").get()], seed: 1)
        #expect(timeline.result.reason == .deadlineExceeded)
        #expect(timeline.elapsed == .seconds(30), "the attempt running into the total deadline is cut there")
        #expect(timeline.attempts.last!.duration < .seconds(5))
        #expect(timeline.attempts.dropLast().allSatisfy { $0.duration == .seconds(5) })
    }

    @Test("simulate: a breaker that opens during a request ends it with circuit_open, without sending the next attempt")
    func timelineWithBreaker() throws {
        var policy = cleanPolicy().withBreaker(CircuitBreakerConfiguration(consecutiveFailures: 2, error: .networkError))
        policy.attempts = 4
        let timeline = RequestTimeline.simulate(policy: policy, responses: [try ScriptedResponse.parse("503").get()], seed: 1)
        #expect(timeline.attempts.count == 2)
        #expect(timeline.result.reason == .circuitOpen)
        #expect(timeline.result.error == .networkError)
        let unbroken = RequestTimeline.simulate(
            policy: policy.withBreaker(nil), responses: [try ScriptedResponse.parse("503").get()], seed: 1)
        #expect(unbroken.attempts.count == 4)
    }
}
