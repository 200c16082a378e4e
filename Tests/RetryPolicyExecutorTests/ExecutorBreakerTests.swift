import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import Testing

@Suite("Executor: circuit breaker")
struct ExecutorBreakerTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    static func policy() -> Policy {
        var policy = Policy(
            name: "breaker", attempts: 1,
            rules: [Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry)],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.breaker = CircuitBreakerConfiguration(
            consecutiveFailures: 2, breakDuration: .seconds(10), halfOpenProbes: 1, error: .networkError)
        return policy
    }

    @Test("opens after two failures, rejects without calling the operation, half-opens after the break, closes on a good probe; every change is an event, a log line and a metric")
    func lifecycle() async throws {
        let log = EventLog()
        let metrics = TestMetrics()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: Self.policy()), clock: clock, wallClockNow: origin, observer: log.observer,
            telemetry: RetryTelemetry(factory: metrics))
        for _ in 0..<2 {
            _ = await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(operation: ScriptedOperation(statuses: [503]).callAsFunction)
            }
        }
        #expect(log.events.contains(.circuitBreaker(.opened(until: origin + .seconds(10), breakDuration: .seconds(10), reason: .consecutiveFailures))))

        let rejected = ScriptedOperation(statuses: [200])
        let result = await capture { () async throws(RetryFailure) in
            try await executor.runConcurrently(operation: rejected.callAsFunction)
        }
        let failure = try #require(result.failure)
        #expect(rejected.calls == 0)
        #expect(failure.reason == .circuitOpen)
        #expect(failure.error.kind == .networkError)
        #expect(failure.error.retryAfter == .seconds(10))

        clock.advance(by: .seconds(10))
        let probe = ScriptedOperation(statuses: [200])
        let response = try await executor.runConcurrently(operation: probe.callAsFunction)
        #expect(response.statusCode == 200)
        #expect(probe.calls == 1)
        let changes = log.events.compactMap { event -> String? in
            if case .circuitBreaker(let transition) = event { transition.state } else { nil }
        }
        #expect(changes == ["open", "half_open", "closed"])
        for (state, reason) in [("open", "consecutive_failures"), ("half_open", "none"), ("closed", "none")] {
            #expect(
                metrics.counter(
                    "retry_policy.breaker.transitions",
                    ["retry_policy.policy": "breaker", "retry_policy.breaker.state": state, "retry_policy.breaker.reason": reason])
                    == 1)
        }
        // The state gauge: one series per state, 1 for the state entered.
        func gauge(_ state: String) -> [Double] {
            metrics.recorded("retry_policy.breaker.state", ["retry_policy.policy": "breaker", "retry_policy.breaker.state": state])
        }
        #expect(gauge("open") == [1, 0, 0])
        #expect(gauge("half_open") == [0, 1, 0])
        #expect(gauge("closed") == [0, 0, 1])
        #expect(
            metrics.timer(
                "retry_policy.client.call.duration",
                [
                    "retry_policy.policy": "breaker", "retry_policy.endpoint": "none", "retry_policy.outcome": "failure",
                    "error.type": "network_error", "retry_policy.stop_reason": "circuit_open",
                ]).count == 1)
    }

    @Test("a policy without a breaker keeps the first-try fast path and reports no breaker event")
    func noBreakerNoEvents() async throws {
        var policy = Self.policy()
        policy.breaker = nil
        let log = EventLog()
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin, observer: log.observer)
        for _ in 0..<5 {
            _ = await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(operation: ScriptedOperation(statuses: [503]).callAsFunction)
            }
        }
        #expect(!log.events.contains { if case .circuitBreaker = $0 { true } else { false } })
    }
}
