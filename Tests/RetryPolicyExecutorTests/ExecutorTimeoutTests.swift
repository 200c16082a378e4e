import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

@Suite("Executor: per-attempt timeout and total deadline")
struct ExecutorTimeoutTests {
    let clock = ManualClock()

    @Test("an attempt slower than the per-attempt timeout is cancelled and counts as a timeout failure")
    func perAttemptTimeoutIsRetried() async throws {
        let operation = ScriptedOperation([.hang, .respond(FakeResponse(statusCode: 200))])
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.appClient(perAttempt: .seconds(2))), clock: clock)
        let (result, steps) = await drive(clock, sleeps: 2) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(steps == [.seconds(2), .milliseconds(500)])
        #expect(operation.calls == 2)
        #expect(operation.cancellations == 1)
    }

    @Test("seed 004: a single-attempt SDK policy reports timeout after the placement's budget")
    func placementTimeoutBudget() async throws {
        let operation = ScriptedOperation([.hang])
        let executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.mobileSDK()), clock: clock)
        let (result, steps) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(RetryRequest(endpoint: "main_banner"), operation: operation.callAsFunction)
            }
        }
        let failure = try #require(result.failure)
        #expect(steps == [.seconds(5)])
        #expect(failure.error.kind == .timeout)
        #expect(failure.error.transport == .timeout)
        #expect(failure.reason == .notRetryable)
        #expect(operation.calls == 1)
        #expect(operation.cancellations == 1)
    }

    @Test("the total deadline cuts the last attempt short and no retry starts past it")
    func totalDeadline() async throws {
        let operation = ScriptedOperation([.respond(FakeResponse(statusCode: 503)), .hang, .hang])
        let log = EventLog()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.appClient(perAttempt: .seconds(10), total: .seconds(3))),
            clock: clock, observer: log.observer)
        let task = Task {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        // Attempt 1 also arms a timer, so wait for the backoff itself.
        await log.waits(atLeast: 1)
        #expect(clock.advanceToNextDeadline() == .milliseconds(500))
        // The second attempt may only use the 2.5 s left.
        await clock.sleepers(atLeast: 1)
        #expect(clock.advanceToNextDeadline() == .milliseconds(2500))
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .deadlineExceeded)
        #expect(failure.error.transport == .timeout)
        #expect(operation.calls == 2)
        #expect(clock.now.offset == .seconds(3))
    }

    @Test("a response before the timeout cancels the timer")
    func fastResponseCancelsTimer() async throws {
        let operation = ScriptedOperation(statuses: [200])
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.appClient(perAttempt: .seconds(2))), clock: clock)
        let response = try await executor.runConcurrently(operation: operation.callAsFunction)
        #expect(response.statusCode == 200)
        #expect(clock.sleeperCount == 0)
    }
}
