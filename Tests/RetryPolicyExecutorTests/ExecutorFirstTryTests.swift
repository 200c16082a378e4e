import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import Testing

/// The first-try path runs outside the retry loop; it must decide exactly
/// like the loop does.
@Suite("Executor: the first-try path")
struct ExecutorFirstTryTests {
    let clock = ManualClock()

    func executor(_ policy: Policy) -> RetryExecutor<ManualClock> {
        RetryExecutor(decider: RetryDecider(policy: policy), clock: clock)
    }

    @Test("a first-try success refunds the budget exactly once")
    func refundsOnce() async throws {
        var policy = TestPolicies.tmdb()
        policy.budget = RetryBudgetConfiguration(capacity: 100, retryCost: 5, successRefund: 1)
        let executor = self.executor(policy)
        #expect(await executor.decider.budget?.withdraw(10) == true)
        let operation = ScriptedOperation(statuses: [200])
        _ = try await executor.runConcurrently(operation: operation.callAsFunction)
        #expect(executor.decider.budget?.available == 91)
    }

    @Test("a 2xx that a rule maps to an error is not taken for a success")
    func ruleMappedSuccessStatusStops() async throws {
        let operation = ScriptedOperation(statuses: [204])
        var policy = TestPolicies.mobileSDK()
        policy.timeouts = TimeoutBudget()  // no timer: the first-try path
        let executor = self.executor(policy)
        let result = await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        let failure = try #require(result.failure)
        #expect(failure.error.kind == .noFill)
        #expect(failure.attempts.count == 1)
    }

    @Test("a rule with action success turns a 404 into a success on the first try")
    func successRule() async throws {
        var policy = TestPolicies.tmdb()
        policy.rules.insert(Rule(statuses: [.code(404)], action: .success), at: 0)
        let operation = ScriptedOperation(statuses: [404])
        let response = try await executor(policy).runConcurrently(operation: operation.callAsFunction)
        #expect(response.statusCode == 404)
        #expect(operation.calls == 1)
    }

    @Test("a first-try failure continues in the loop with that attempt, not a new one")
    func failureHandsOverTheAttempt() async throws {
        let operation = ScriptedOperation(statuses: [503, 200])
        let executor = self.executor(TestPolicies.tmdb(jitter: .none))
        let (result, steps) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(operation.calls == 2)
        #expect(steps == [.seconds(1)])
    }
}
