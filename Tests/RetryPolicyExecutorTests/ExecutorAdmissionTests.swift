import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

@Suite("Executor: cooldown admission and credential refresh")
struct ExecutorAdmissionTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    @Test("cooldown: wait — a 429's Retry-After holds the next request back until it ends")
    func cooldownWait() async throws {
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .wait)), clock: clock, wallClockNow: origin)
        let limited = ScriptedOperation([.respond(FakeResponse(statusCode: 429, headers: ["Retry-After": "8"]))])
        let first = await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: limited.callAsFunction) }
        #expect(first.failure?.error.kind == .status429)
        #expect(first.failure?.error.retryAfter == .seconds(8))

        clock.advance(by: .seconds(2))
        let next = ScriptedOperation(statuses: [200])
        let log = EventLog()
        var observed = executor
        observed.observer = log.observer
        let (second, steps) = await drive(clock, sleeps: 1) { [observed] in
            await capture { () async throws(RetryFailure) in try await observed.runConcurrently(operation: next.callAsFunction) }
        }
        #expect(try second.get().statusCode == 200)
        #expect(steps == [.seconds(6)])
        #expect(log.waitCauses == [.cooldown])
        #expect(next.calls == 1)
    }

    @Test("cooldown: wait — a cooldown longer than the total deadline fails at once without a request")
    func cooldownPastDeadline() async throws {
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .wait)), clock: clock, wallClockNow: origin)
        let limited = ScriptedOperation([.respond(FakeResponse(statusCode: 429, headers: ["Retry-After": "30"]))])
        _ = await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: limited.callAsFunction) }

        let next = ScriptedOperation(statuses: [200])
        let failure = try #require(
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: next.callAsFunction) }.failure)
        #expect(failure.reason == .deadlineExceeded)
        #expect(failure.error.kind == .status429)
        #expect(failure.error.retryAfter == .seconds(30))
        #expect(next.calls == 0)
        #expect(failure.attempts.isEmpty)
    }

    @Test("cooldown: reject — requests fail fast without being sent while the cooldown runs")
    func cooldownReject() async throws {
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.mobileSDK(cooldown: .reject)), clock: clock, wallClockNow: origin)
        let limited = ScriptedOperation([.respond(FakeResponse(statusCode: 429, headers: ["Retry-After": "30"]))])
        _ = await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: limited.callAsFunction) }

        clock.advance(by: .seconds(12))
        let rejected = ScriptedOperation(statuses: [200])
        let failure = try #require(
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: rejected.callAsFunction) }.failure)
        #expect(rejected.calls == 0)
        #expect(failure.error.kind == .status429)
        #expect(failure.error.retryAfter == .seconds(18))
        #expect(failure.attempts.isEmpty)

        clock.advance(by: .seconds(18))
        let after = try await executor.runConcurrently(operation: rejected.callAsFunction)
        #expect(after.statusCode == 200)
        #expect(rejected.calls == 1)
    }

    @Test("seed 002: a 401 refreshes credentials once and retries; a second 401 stops")
    func refreshOnce() async throws {
        let refreshes = Counter()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.appClient()), clock: clock,
            refreshCredentials: { refreshes.increment() })

        let recovers = ScriptedOperation(statuses: [401, 200])
        let (ok, _) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: recovers.callAsFunction) }
        }
        #expect(try ok.get().statusCode == 200)
        #expect(refreshes.value == 1)
        #expect(recovers.contexts.map(\.credentialRefreshes) == [0, 1])

        let stillUnauthorized = ScriptedOperation(statuses: [401, 401, 200])
        let (failed, _) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: stillUnauthorized.callAsFunction) }
        }
        let failure = try #require(failed.failure)
        #expect(failure.error.kind == .unauthorized)
        #expect(failure.reason == .notRetryable)
        #expect(stillUnauthorized.calls == 2)
        #expect(refreshes.value == 2)
    }

    @Test("a failing credential refresh ends the request with the 401's error")
    func refreshFailure() async throws {
        struct RefreshFailed: Error {}
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.appClient()), clock: clock,
            refreshCredentials: { throw RefreshFailed() })
        let operation = ScriptedOperation(statuses: [401, 200])
        let (result, _) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        let failure = try #require(result.failure)
        #expect(failure.error.kind == .unauthorized)
        #expect(failure.error.statusCode == 401)
        #expect(failure.underlyingError is RefreshFailed)
        #expect(operation.calls == 1)
    }
}
