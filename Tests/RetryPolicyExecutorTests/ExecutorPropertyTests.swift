import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

@Suite("Executor: invariants")
struct ExecutorPropertyTests {
    /// Any script of statuses: the executor never sends more than the
    /// policy's attempts, every wait is within the backoff's bounds, the
    /// request ends on the first non-retryable outcome, and the failure's
    /// history has one record per request sent.
    @Test("attempts, waits and history agree with the policy for any script of responses")
    func attemptsAndWaitsStayWithinPolicy() async {
        let statuses = Gen.oneOf(Gen.always(200), Gen.always(204), Gen.always(404), Gen.always(429), Gen.int(in: 500...504))
        await propertyCheck(count: 60, input: statuses.array(of: 1...6), Gen.uint64()) { script, seed in
            let policy = TestPolicies.tmdb()
            let clock = ManualClock()
            let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock)
            let operation = ScriptedOperation(statuses: script)
            let task = Task {
                await capture { () async throws(RetryFailure) in
                    var generator = SplitMix64(seed: seed)
                    return try await executor.runConcurrently(using: &generator, operation: operation.callAsFunction)
                }
            }
            // Drive until the task is done: each retry sleeps exactly once.
            var waits: [Duration] = []
            let expectedWaits = Self.expectedRetries(script + [200], attempts: policy.attempts)
            for _ in 0..<expectedWaits {
                await clock.sleepers(atLeast: 1)
                waits.append(clock.advanceToNextDeadline() ?? .zero)
            }
            let result = await task.value
            #expect(operation.calls == expectedWaits + 1)
            #expect(operation.calls <= policy.attempts)
            for (index, wait) in waits.enumerated() {
                let bounds = policy.backoff.bounds(forRetry: index + 1, previousDelay: nil)
                #expect(bounds.contains(wait))
            }
            switch result {
            case .success(let response):
                let firstSuccess = (script + [200]).firstIndex(where: { (200...299).contains($0) })!
                #expect(response.statusCode == (script + [200])[firstSuccess])
                #expect(operation.calls == firstSuccess + 1)
            case .failure(let failure):
                #expect(failure.attempts.count == operation.calls)
                #expect(failure.attempts.last?.decision.error == failure.error)
            }
        }
    }

    /// Retries happen while the outcome is 429/5xx and attempts remain.
    static func expectedRetries(_ script: [Int], attempts: Int) -> Int {
        var retries = 0
        for status in script {
            guard status == 429 || (500...599).contains(status) else { break }
            if retries + 1 >= attempts { break }
            retries += 1
        }
        return retries
    }

    @Test("the manual clock wakes a sleeper exactly at its deadline and never early")
    func manualClockWakesAtDeadline() async {
        await propertyCheck(count: 40, input: Gen.int(in: 1...10_000)) { milliseconds in
            let clock = ManualClock()
            let woke = Counter()
            let task = Task {
                try? await clock.sleep(for: .milliseconds(milliseconds))
                woke.increment()
            }
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(milliseconds - 1))
            #expect(woke.value == 0)
            #expect(clock.sleeperCount == 1)
            clock.advance(by: .milliseconds(1))
            await task.value
            #expect(woke.value == 1)
        }
    }
}
