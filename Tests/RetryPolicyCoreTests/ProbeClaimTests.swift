import RetryPolicyCore
import Testing

/// A store that claims half-open probes' permits elsewhere and waits for
/// them (as a database does): `permits` claims are granted, later ones
/// refused. Claims, probes decided without waiting and releases are
/// counted.
final class ClaimingBreakerStore: RetryStateStore {
    struct Calls: Equatable {
        var claims = 0
        var notWaited = 0
        var releases = 0
    }

    let permits: LockedValue<Int>
    let calls = LockedValue(Calls())

    init(permits: Int) { self.permits = LockedValue(permits) }

    func admit(at now: Timestamp, through breaker: CircuitBreaker) -> (Admission, CircuitBreakerTransition?) {
        if let decided = admitUnlessClaiming(at: now, through: breaker) { return decided }
        calls.withLock { $0.notWaited += 1 }
        return breaker.admitLocally(at: now)
    }

    func admitUnlessClaiming(at now: Timestamp, through breaker: CircuitBreaker) -> (Admission, CircuitBreakerTransition?)? {
        breaker.admitWithoutProbe(at: now)
    }

    func claimProbe(at now: Timestamp, through breaker: CircuitBreaker) async -> (Admission, CircuitBreakerTransition?) {
        if let decided = admitUnlessClaiming(at: now, through: breaker) { return decided }
        await Task.yield()
        calls.withLock { $0.claims += 1 }
        let granted = permits.withLock { permits -> Bool in
            guard permits > 0 else { return false }
            permits -= 1
            return true
        }
        guard granted else { return (breaker.configuration.rejection(retryAfter: nil), nil) }
        return breaker.admitProbe(at: now, newPeriod: false)
    }

    func release(_ ticket: CircuitBreakerStateMachine.Ticket, in breaker: CircuitBreaker) {
        calls.withLock { $0.releases += 1 }
        breaker.releaseLocally(ticket)
    }

    func withdrawWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Bool { budget.withdrawLocally(cost) }
    func drainWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Int { budget.drainLocally(cost) }
    func deposit(_ amount: Int, to budget: RetryBudget) { budget.depositLocally(amount) }
    func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {}
}

@Suite("A breaker whose store waits for probe permits: the machine hands the claim to its driver")
struct ProbeClaimTests {
    static let origin = Timestamp(secondsSince1970: 1_700_000_000)
    /// After the 10 s break of a breaker opened at `origin`.
    static let afterBreak = origin + .seconds(11)

    static func at(_ milliseconds: Int) -> RequestTime { RequestTime(.milliseconds(milliseconds), since: afterBreak) }

    /// One failure opens the breaker for 10 s; `probes` probes after it.
    static func decider(store: any RetryStateStore, probes: Int = 1, total: Duration? = nil) -> RetryDecider {
        var policy = Policy(
            name: "claims", attempts: 1, timeouts: TimeoutBudget(total: total),
            rules: [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)])
        policy.breaker = CircuitBreakerConfiguration(consecutiveFailures: 1, breakDuration: .seconds(10), halfOpenProbes: probes)
        let decider = RetryDecider(policy: policy, store: store)
        if let breaker = decider.breaker, case .proceed(let ticket?) = breaker.admit(at: origin).0 {
            _ = breaker.record(failure: true, ticket: ticket, at: origin)
        }
        return decider
    }

    @Test("A probe's claim is an action: the machine starts the probe the store admitted, and ends a request it refused")
    func claimIsAnAction() async throws {
        let store = ClaimingBreakerStore(permits: 1)
        let decider = Self.decider(store: store)
        #expect(decider.breaker?.state == .open(until: Self.origin + .seconds(10)))
        var first = RequestStateMachine(decider: decider)
        guard case .claimProbe(let claim) = first.start(at: Self.at(0)) else {
            Issue.record("a probe under a store that waits claims through its driver")
            return
        }
        #expect(claim.time == Self.afterBreak)
        // The machine itself neither claimed nor decided locally.
        #expect(store.calls.withLock { $0 } == ClaimingBreakerStore.Calls())
        var second = RequestStateMachine(decider: decider)
        guard case .claimProbe(let refusedClaim) = second.start(at: Self.at(1)) else {
            Issue.record("the second probe did not claim")
            return
        }

        let answer = await claim.settle()
        guard case .startAttempt(number: 1, timeLimit: nil) = first.probeClaimed(answer, at: Self.at(5)) else {
            Issue.record("the admitted probe did not start")
            return
        }
        #expect(first.breakerTransition == .halfOpened)
        // Every permit is out: the other request ends.
        guard case .fail(let failure) = second.probeClaimed(await refusedClaim.settle(), at: Self.at(6)) else {
            Issue.record("the refused probe did not end its request")
            return
        }
        #expect(failure.reason == .circuitOpen && second.rejectedByBreaker)
        #expect(store.calls.withLock { $0 } == ClaimingBreakerStore.Calls(claims: 2))

        var generator = SplitMix64(seed: 1)
        guard case .succeed = first.attemptFinished(.status(200), at: Self.at(20), using: &generator) else {
            Issue.record("the probe's success did not end the request")
            return
        }
        #expect(decider.breaker?.state == .closed)
    }

    @Test("A probe admitted after the total deadline passed during its claim gives its permit back")
    func deadlinePassedWhileClaiming() async throws {
        let store = ClaimingBreakerStore(permits: 1)
        let decider = Self.decider(store: store, total: .seconds(1))
        var machine = RequestStateMachine(decider: decider)
        guard case .claimProbe(let claim) = machine.start(at: Self.at(0)) else {
            Issue.record("no claim")
            return
        }
        let answer = await claim.settle()
        guard case .proceed = answer.0 else {
            Issue.record("the store refused the only claim")
            return
        }
        guard case .fail(let failure) = machine.probeClaimed(answer, at: Self.at(1500)) else {
            Issue.record("a probe started after the deadline")
            return
        }
        #expect(failure.reason == .deadlineExceeded)
        #expect(store.calls.withLock { $0.releases } == 1)
    }

    @Test("A driver that cannot wait settles the claim on the local breaker; an in-memory breaker never claims")
    func settledWithoutWaiting() throws {
        let store = ClaimingBreakerStore(permits: 0)
        var machine = RequestStateMachine(decider: Self.decider(store: store))
        guard case .claimProbe(let claim) = machine.start(at: Self.at(0)) else {
            Issue.record("no claim")
            return
        }
        guard case .startAttempt = machine.probeClaimed(claim.settleWithoutWaiting(), at: Self.at(0)) else {
            Issue.record("the local breaker did not admit its own probe")
            return
        }
        #expect(store.calls.withLock { $0 } == ClaimingBreakerStore.Calls(notWaited: 1))

        var inMemory = RequestStateMachine(decider: Self.decider(store: InMemoryRetryStateStore()))
        guard case .startAttempt = inMemory.start(at: Self.at(0)) else {
            Issue.record("an in-memory breaker asked its driver to claim")
            return
        }
        #expect(inMemory.breakerTransition == .halfOpened)
    }
}
