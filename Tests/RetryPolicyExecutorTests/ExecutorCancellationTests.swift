import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

@Suite("Executor: cancellation")
struct ExecutorCancellationTests {
    let clock = ManualClock()

    @Test("cancelling during a backoff wait ends the request at once with cancelled, and no attempt follows")
    func cancelDuringWait() async throws {
        let operation = ScriptedOperation(statuses: [503, 200])
        let executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.tmdb(jitter: .none)), clock: clock)
        let task = Task {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        await clock.sleepers(atLeast: 1)
        task.cancel()
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(failure.error.kind == .cancelled)
        #expect(failure.error.transport == .cancelled)
        #expect(failure.attempts.count == 1)
        #expect(operation.calls == 1)
        #expect(clock.now.offset == .zero)
    }

    @Test("a request started in a cancelled task runs its first try, as a direct call would, and returns its answer")
    func cancelledBeforeFirstAttempt() async throws {
        let operation = ScriptedOperation(statuses: [200])
        let executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.tmdb()), clock: clock)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        #expect(try await task.value.get().statusCode == 200)
        #expect(operation.calls == 1)
    }

    @Test("a first try that fails in a cancelled task ends the request as cancelled, the attempt recorded, with no retry")
    func cancelledBeforeFailingFirstAttempt() async throws {
        let operation = ScriptedOperation(statuses: [503, 200])
        let executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.tmdb()), clock: clock)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(failure.kind == .cancelled)
        #expect(failure.attempts.count == 1)
        #expect(operation.calls == 1)
    }

    @Test("cancelling during an attempt cancels the operation and is never retried")
    func cancelDuringAttempt() async throws {
        let operation = ScriptedOperation([.hang, .respond(FakeResponse(statusCode: 200))])
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.appClient(perAttempt: .seconds(10))), clock: clock)
        let task = Task {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        await clock.sleepers(atLeast: 1)  // the per-attempt timer
        task.cancel()
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(operation.calls == 1)
        #expect(operation.cancellations == 1)
    }

    @Test("a policy rule for the cancelled transport class names the error")
    func policyNamesCancellation() async throws {
        var policy = TestPolicies.tmdb()
        policy.rules.insert(Rule(transports: [.cancelled], error: "request_cancelled", action: .stop), at: 0)
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(operation: ScriptedOperation(statuses: [503]).callAsFunction)
            }
        }
        let failure = try #require(await task.value.failure)
        #expect(failure.error.kind == "request_cancelled")
        #expect(failure.reason == .cancelled)
    }
}

@Suite("Executor: cancellation racing a response")
struct ExecutorLateCancellationTests {
    @Test("a response that arrived before the caller cancelled is still returned")
    func responseBeforeCancellation() async throws {
        let clock = ManualClock()
        let executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.tmdb()), clock: clock)
        let task = Task {
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently { _ in
                    // The caller cancels while the response is on its way back.
                    withUnsafeCurrentTask { $0?.cancel() }
                    return FakeResponse(statusCode: 200)
                }
            }
        }
        #expect(try await task.value.get().statusCode == 200)
    }
}

@Suite("Executor: cancellation in the caller's task")
struct ExecutorCallerTaskCancellationTests {
    struct Flaky: Error {}

    @Test(
        "a request started in a cancelled task runs its first try, as seed 003's retry does; a value is returned",
        arguments: [false, true])
    func cancelledBeforeFirstAttempt(observed: Bool) async throws {
        // An observed executor takes the machine's path from the start.
        var observer: RetryObserver?
        if observed { observer = { _ in } }
        let executor = RetryExecutor(
            decider: RetryDecider(policy: ExecutorClockReadingTests.timeless()), clock: ManualClock(),
            observer: observer, tracing: nil)
        let calls = LockedValue(0)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await capture { () async throws(RetryFailure) -> Int in
                try await executor.run { _ throws(Flaky) -> Int in calls.withLock { $0 += 1; return $0 } }
            }
        }
        #expect(try await task.value.get() == 1)
        #expect(calls.withLock { $0 } == 1)
    }

    @Test(
        "a first try that throws in a cancelled task ends as cancelled, the attempt recorded, and is not retried",
        arguments: [false, true])
    func cancelledBeforeFailingFirstAttempt(observed: Bool) async throws {
        // An observed executor takes the machine's path from the start.
        var observer: RetryObserver?
        if observed { observer = { _ in } }
        let executor = RetryExecutor(
            decider: RetryDecider(policy: ExecutorClockReadingTests.timeless()), clock: ManualClock(),
            observer: observer, tracing: nil)
        let calls = LockedValue(0)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await capture { () async throws(RetryFailure) -> Int in
                try await executor.run { _ throws(Flaky) -> Int in
                    calls.withLock { $0 += 1 }
                    throw Flaky()
                }
            }
        }
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(failure.kind == .cancelled)
        #expect(failure.attempts.count == 1)
        #expect(failure.attempts.first?.thrownError is Flaky)
        #expect(calls.withLock { $0 } == 1)
    }

    @Test("a backoff cancelled while waiting ends as cancelled, not as the attempt's failure")
    func cancelledBackoff() async throws {
        let clock = ManualClock()
        let policy = ExecutorClockReadingTests.timeless(
            backoff: Backoff(initial: .seconds(5), max: .seconds(5), multiplier: 1, jitter: .none))
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, tracing: nil)
        let calls = LockedValue(0)
        let task = Task {
            await capture { () async throws(RetryFailure) -> Int in
                try await executor.run { _ throws(Flaky) -> Int in
                    calls.withLock { $0 += 1 }
                    throw Flaky()
                }
            }
        }
        await clock.sleepers(atLeast: 1)
        task.cancel()
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(failure.kind == .cancelled)
        #expect(failure.attempts.count == 1)
        #expect(calls.withLock { $0 } == 1)
    }
}
