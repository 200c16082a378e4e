import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import Testing

/// A ratio budget counts every request: the executor's first tries,
/// successes included, deposit.
@Suite("Executor: ratio budgets")
struct ExecutorRatioBudgetTests {
    let clock = ManualClock()

    @Test("every request deposits, a first-try success included")
    func firstTriesDeposit() async throws {
        var policy = TestPolicies.tmdb()
        policy.timeouts = TimeoutBudget()  // no timer: a first try the shortcut would take
        policy.breaker = nil
        policy.budget = .ratio(RatioRetryBudget(permille: 1000, minRetriesPerSecond: 0, window: .seconds(10)))
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock)
        #expect(executor.decider.budget?.available == 0)
        for _ in 0..<3 {
            let operation = ScriptedOperation(statuses: [200])
            _ = try await executor.runConcurrently(operation: operation.callAsFunction)
        }
        #expect(executor.decider.budget?.available == 3000)
    }
}
