import PropertyBased
import RetryPolicyCore
@testable import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import Testing

/// Shadow mode: a candidate policy is shown every request's attempts and
/// reports where it would have decided differently; the live policy alone
/// acts.
@Suite("Shadow mode: a candidate policy beside the live one", .timeLimit(.minutes(1)))
struct ShadowModeTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    final class Divergences: Sendable {
        let all = LockedValue<[ShadowDivergence]>([])
        var kinds: [ShadowDivergence.Kind] { all.withLock { $0.map(\.kind) } }
        var list: [ShadowDivergence] { all.withLock { $0 } }
    }

    func executor(live: Policy, candidate: Policy, _ divergences: Divergences, metrics: TestMetrics = TestMetrics())
        -> RetryExecutor<ManualClock>
    {
        var executor = RetryExecutor(decider: RetryDecider(policy: live), clock: clock, wallClockNow: origin)
        executor.shadow = ShadowPolicy(
            policy: candidate, observer: { divergence in divergences.all.withLock { $0.append(divergence) } },
            factory: metrics)
        return executor
    }

    /// TMDb's policy with `attempts` attempts and an `initial` backoff.
    static func tmdb(attempts: Int = 4, initial: Duration = .seconds(1), name: String = "tmdb") -> Policy {
        var policy = TestPolicies.tmdb(jitter: .none)
        policy.name = name
        policy.attempts = attempts
        policy.backoff.initial = initial
        return policy
    }

    func send(_ executor: RetryExecutor<ManualClock>, _ statuses: [Int], sleeps: Int) async -> (Result<FakeResponse, RetryFailure>, Int) {
        let operation = ScriptedOperation(statuses: statuses)
        let (result, _) = await drive(clock, sleeps: sleeps) { [executor] in
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        return (result, operation.calls)
    }

    @Test("the same policy as candidate: no divergence, and every request compared in full")
    func samePolicy() async throws {
        let divergences = Divergences()
        let metrics = TestMetrics()
        let executor = executor(live: Self.tmdb(), candidate: Self.tmdb(name: "candidate"), divergences, metrics: metrics)
        _ = await send(executor, [503, 429, 200], sleeps: 2)
        _ = await send(executor, [404], sleeps: 0)
        #expect(divergences.kinds.isEmpty)
        #expect(
            metrics.counter(
                "retry_policy.shadow.requests",
                ["retry_policy.policy": "tmdb", "retry_policy.shadow.policy": "candidate", "retry_policy.shadow.coverage": "complete"])
                == 2)
    }

    @Test("fewer attempts: the candidate would have stopped where the live policy retried; the live request is untouched")
    func wouldStop() async throws {
        let divergences = Divergences()
        let metrics = TestMetrics()
        let executor = executor(live: Self.tmdb(), candidate: Self.tmdb(attempts: 2, name: "candidate"), divergences, metrics: metrics)
        let (result, calls) = await send(executor, [503, 503, 200], sleeps: 2)
        #expect(try result.get().statusCode == 200)
        #expect(calls == 3)
        let divergence = try #require(divergences.list.first)
        #expect(divergences.kinds == [.wouldStop])
        #expect(divergence.attempt == 2)
        #expect(divergence.candidateStopReason == .attemptsExhausted)
        #expect(divergence.live?.isRetry == true)
        #expect(
            metrics.counter(
                "retry_policy.shadow.divergences",
                ["retry_policy.policy": "tmdb", "retry_policy.shadow.policy": "candidate", "retry_policy.shadow.divergence": "would_stop"])
                == 1)
    }

    @Test("more attempts: the candidate would have retried where the live policy stopped, and the rest was never observed")
    func wouldRetry() async throws {
        let divergences = Divergences()
        let metrics = TestMetrics()
        let executor = executor(live: Self.tmdb(attempts: 1), candidate: Self.tmdb(name: "candidate"), divergences, metrics: metrics)
        let (result, calls) = await send(executor, [503, 200], sleeps: 0)
        #expect(result.failure?.reason == .attemptsExhausted)
        #expect(calls == 1)
        #expect(divergences.kinds == [.wouldRetry])
        #expect(
            metrics.counter(
                "retry_policy.shadow.requests",
                ["retry_policy.policy": "tmdb", "retry_policy.shadow.policy": "candidate", "retry_policy.shadow.coverage": "partial"])
                == 1)
    }

    @Test("a longer backoff: each retry waits longer, by the difference of the delays")
    func waitsLonger() async throws {
        let divergences = Divergences()
        let executor = executor(live: Self.tmdb(), candidate: Self.tmdb(initial: .seconds(2), name: "candidate"), divergences)
        _ = await send(executor, [503, 503, 200], sleeps: 2)
        #expect(divergences.kinds == [.waitsLonger, .waitsLonger])
        #expect(divergences.list.map(\.delayDifference) == [.seconds(1), .seconds(2)])
    }

    @Test("the candidate's own breaker: opened by what it saw, it would have refused the next request")
    func breaker() async throws {
        let divergences = Divergences()
        var candidate = Self.tmdb(attempts: 1, name: "candidate")
        candidate.breaker = CircuitBreakerConfiguration(
            consecutiveFailures: 1, breakDuration: .seconds(30), halfOpenProbes: 1, error: .networkError)
        let executor = executor(live: Self.tmdb(attempts: 1), candidate: candidate, divergences)
        _ = await send(executor, [503], sleeps: 0)
        let (result, calls) = await send(executor, [200], sleeps: 0)
        #expect(try result.get().statusCode == 200, "the live policy has no breaker: it sends")
        #expect(calls == 1)
        #expect(divergences.kinds == [.rejectedByBreaker])
        #expect(divergences.list.first?.candidateStopReason == .circuitOpen)
    }

    @Test("the candidate's own budget: the retry it could not pay for")
    func budget() async throws {
        let divergences = Divergences()
        var candidate = Self.tmdb(name: "candidate")
        candidate.budget = RetryBudgetConfiguration(capacity: 5, retryCost: 5, timeoutRetryCost: 5, successRefund: 0)
        let executor = executor(live: Self.tmdb(), candidate: candidate, divergences)
        _ = await send(executor, [503, 503, 200], sleeps: 2)
        #expect(divergences.kinds == [.rejectedByBudget])
        #expect(divergences.list.first?.attempt == 2)
    }

    @Test("rules that differ: a status the candidate accepts, a status it stops on with another error")
    func rules() async throws {
        let divergences = Divergences()
        var candidate = Self.tmdb(name: "candidate")
        candidate.rules.insert(Rule(statuses: [.code(503)], error: .status5xx, action: .success), at: 0)
        candidate.rules.insert(Rule(statuses: [.code(404)], error: .invalidPlacement, action: .stop), at: 0)
        let executor = executor(live: Self.tmdb(), candidate: candidate, divergences)
        _ = await send(executor, [503, 200], sleeps: 1)
        _ = await send(executor, [404], sleeps: 0)
        #expect(divergences.kinds == [.acceptedAsSuccess, .differentError])
    }

    @Test("hedged requests are counted as not compared")
    func hedged() async throws {
        let divergences = Divergences()
        let metrics = TestMetrics()
        var live = Self.tmdb()
        live.hedging = HedgingPolicy(delay: .milliseconds(100))
        let executor = executor(live: live, candidate: Self.tmdb(name: "candidate"), divergences, metrics: metrics)
        let operation = ScriptedOperation(statuses: [200])
        _ = try await executor.runConcurrently(operation: operation.callAsFunction)
        #expect(divergences.kinds.isEmpty)
        #expect(
            metrics.counter(
                "retry_policy.shadow.requests",
                ["retry_policy.policy": "tmdb", "retry_policy.shadow.policy": "candidate", "retry_policy.shadow.coverage": "not_compared"])
                == 1)
    }

    /// Runs `policy` through its request state machine over `script`, with
    /// waits taken in full: the history a live request would have.
    static func history(_ policy: Policy, _ request: RetryRequest, _ script: [ExecutorSimulatorAgreementTests.Step], seed: UInt64)
        -> (history: [AttemptRecord], end: StopReason?)
    {
        var machine = RequestStateMachine(decider: RetryDecider(policy: policy), request: request)
        var generator = SplitMix64(seed: seed)
        let origin = ExecutorSimulatorAgreementTests.origin
        var now = Duration.zero
        var action = machine.start(at: RequestTime(elapsed: now, wall: origin + now))
        var steps = script[...]
        while true {
            switch action {
            case .startAttempt:
                guard let step = steps.popFirst() else { return (machine.history, .cancelled) }
                now += min(step.latency, .seconds(10))
                var producedValue = false
                if case .response = step.response.outcome { producedValue = true }
                action = machine.attemptFinished(
                    step.response.outcome, at: RequestTime(elapsed: now, wall: origin + now), producedValue: producedValue,
                    using: &generator)
            case .wait(let delay, _):
                now += delay
                action = machine.waitFinished(at: RequestTime(elapsed: now, wall: origin + now))
            case .refreshCredentials:
                action = machine.credentialRefreshFinished(at: RequestTime(elapsed: now, wall: origin + now))
            case .payBudget(let payment):
                action = machine.budgetPaid(
                    payment.settleWithoutWaiting(), at: RequestTime(elapsed: now, wall: origin + now))
            case .claimProbe(let claim):
                action = machine.probeClaimed(
                    claim.settleWithoutWaiting(), at: RequestTime(elapsed: now, wall: origin + now))
            case .succeed, .hedge:
                return (machine.history, nil)
            case .fail(let failure):
                return (machine.history, failure.reason)
            }
        }
    }

    @Test("a policy shadowing itself never diverges and sees every request in full, for any policy without jitter and any server")
    func selfShadowNeverDiverges() async {
        await propertyCheck(
            count: 1_000,
            input: Gen.int(in: 0...1_000).array(of: ExecutorSimulatorAgreementTests.geneCount), Gen.int(in: 0...100_000).array(of: 1...6), Gen.uint64()
        ) { genes, codes, seed in
            var policy = ExecutorSimulatorAgreementTests.policy(genes)
            policy.hedging = nil
            // A jittered delay is drawn anew by the candidate (in the middle
            // of its range), so near a total deadline a jittered policy may
            // stop where its live run, with another draw, retried.
            policy.backoff.jitter = .none
            let request = ExecutorSimulatorAgreementTests.request(genes)
            let (history, end) = Self.history(policy, request, codes.map(ExecutorSimulatorAgreementTests.step), seed: seed)
            let comparison = ShadowComparison(
                history: history[...], liveEnd: end, request: request, startedAt: ExecutorSimulatorAgreementTests.origin, live: policy,
                candidate: RetryDecider(policy: policy))
            #expect(comparison.divergences.isEmpty, "\(comparison.divergences)\n\(policy)\n\(history)")
            // A script that runs out is a request cancelled mid-way.
            #expect(comparison.coverage == (end == .cancelled ? .partial : .complete), "\(policy)\n\(history)")
        }
    }
}
