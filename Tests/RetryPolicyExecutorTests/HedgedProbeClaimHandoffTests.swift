import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

/// A hedged request whose next copy is a half-open probe awaits the
/// store's permit beside the copies in flight. When the request ends
/// before the permit arrives, the permit is given back: a probe that will
/// never start must not hold one of the breaker's `half_open_probes`.
@Suite("Executor: a hedged copy's probe permit that arrives after the request ended is given back", .timeLimit(.minutes(1)))
struct HedgedProbeClaimHandoffTests {
    static let origin = Timestamp(secondsSince1970: 1_700_000_000)
    /// After the 10 s break of a breaker opened at `origin`.
    static let afterBreak = origin + .seconds(11)

    /// A store that claims probe permits elsewhere, as a database does: the
    /// first claim is granted at once, later ones wait until `open()`.
    final class GatedClaimStore: RetryStateStore {
        let claims = LockedValue(0)
        let releases = LockedValue(0)
        private let gate = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        private let opened = LockedValue(false)
        let waiting: AsyncStream<Void>
        private let waitingContinuation: AsyncStream<Void>.Continuation

        init() { (waiting, waitingContinuation) = AsyncStream.makeStream() }

        func admit(at now: Timestamp, through breaker: CircuitBreaker) -> (Admission, CircuitBreakerTransition?) {
            admitUnlessClaiming(at: now, through: breaker) ?? breaker.admitLocally(at: now)
        }

        func admitUnlessClaiming(at now: Timestamp, through breaker: CircuitBreaker) -> (Admission, CircuitBreakerTransition?)? {
            breaker.admitWithoutProbe(at: now)
        }

        func claimProbe(at now: Timestamp, through breaker: CircuitBreaker) async -> (Admission, CircuitBreakerTransition?) {
            if let decided = admitUnlessClaiming(at: now, through: breaker) { return decided }
            let number = claims.withLock { claims -> Int in
                claims += 1
                return claims
            }
            if number > 1 {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let open = opened.withLock { $0 }
                    if open { continuation.resume() } else { gate.withLock { $0 = continuation } }
                    waitingContinuation.yield()
                }
            }
            return breaker.admitProbe(at: now, newPeriod: false)
        }

        /// Lets the waiting claim through.
        func open() {
            opened.withLock { $0 = true }
            gate.withLock { gate in
                gate?.resume()
                gate = nil
            }
        }

        func release(_ ticket: CircuitBreakerStateMachine.Ticket, in breaker: CircuitBreaker) {
            releases.withLock { $0 += 1 }
            breaker.releaseLocally(ticket)
        }

        func withdrawWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Bool { budget.withdrawLocally(cost) }
        func drainWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Int { budget.drainLocally(cost) }
        func deposit(_ amount: Int, to budget: RetryBudget) { budget.depositLocally(amount) }
        func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {}
    }

    struct Response: RetryableResponse {
        var statusCode: Int
        var attempt: Int
        func headerValue(named name: String) -> String? { nil }
    }

    @Test("the second copy's permit, granted after the first copy won, is released and no second copy starts")
    func latePermitIsGivenBack() async throws {
        var policy = Policy(
            name: "hedged-probes", attempts: 2,
            rules: [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)])
        policy.breaker = CircuitBreakerConfiguration(consecutiveFailures: 1, breakDuration: .seconds(10), halfOpenProbes: 2)
        policy.hedging = HedgingPolicy(delay: .milliseconds(100))
        let store = GatedClaimStore()
        let decider = RetryDecider(policy: policy, store: store)
        // Open the breaker at `origin`; the request runs after its break.
        let breaker = try #require(decider.breaker)
        guard case .proceed(let ticket?) = breaker.admit(at: Self.origin).0 else {
            Issue.record("the closed breaker refused the request that opens it")
            return
        }
        _ = breaker.record(failure: true, ticket: ticket, at: Self.origin)

        let clock = ManualClock()
        let (succeeded, succeededContinuation) = AsyncStream<Void>.makeStream()
        let executor = RetryExecutor(
            decider: decider, clock: clock, wallClockNow: Self.afterBreak,
            observer: { event in
                if case .succeeded = event { succeededContinuation.yield() }
            })
        let started = LockedValue<[Int]>([])
        let task = Task {
            try await executor.runConcurrently(RetryRequest(method: .get)) { context in
                started.withLock { $0.append(context.attempt) }
                try await clock.sleep(for: .seconds(10))
                return Response(statusCode: 200, attempt: context.attempt)
            }
        }
        await clock.sleepers(atLeast: 2)  // the first copy and the hedge timer
        clock.advance(by: .milliseconds(100))
        // The hedge timer fired: the second copy's claim waits on the store.
        var waiting = store.waiting.makeAsyncIterator()
        _ = await waiting.next()
        // The first copy answers 200 while the claim is still out.
        clock.advance(by: .seconds(10))
        var success = succeeded.makeAsyncIterator()
        _ = await success.next()
        store.open()
        let response = try await task.value

        #expect(response.attempt == 1 && response.statusCode == 200)
        #expect(started.withLock { $0 } == [1])
        #expect(store.claims.withLock { $0 } == 2)
        // The permit granted to the copy that never started went back.
        #expect(store.releases.withLock { $0 } == 1)
    }
}
