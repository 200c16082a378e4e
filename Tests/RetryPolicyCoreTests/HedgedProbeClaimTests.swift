import RetryPolicyCore
import Testing

/// A hedged copy that is a half-open probe claims its permit through the
/// driver, like a sequential attempt, so that a breaker whose state is
/// shared admits no more probes than its store grants fleet-wide.
@Suite("A hedged copy's probe claims its permit through the driver")
struct HedgedProbeClaimTests {
    static let origin = ProbeClaimTests.origin

    static func at(_ milliseconds: Int) -> RequestTime { ProbeClaimTests.at(milliseconds) }

    /// Two attempts, hedged after 100 ms; a breaker opened at `origin`
    /// that lets two probes through once its 10 s break is over.
    static func machine(store: any RetryStateStore) -> (RequestStateMachine, RetryDecider) {
        var policy = Policy(
            name: "hedged-claims", attempts: 2,
            rules: [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)])
        policy.breaker = CircuitBreakerConfiguration(consecutiveFailures: 1, breakDuration: .seconds(10), halfOpenProbes: 2)
        policy.hedging = HedgingPolicy(delay: .milliseconds(100))
        let decider = RetryDecider(policy: policy, store: store)
        if let breaker = decider.breaker, case .proceed(let ticket?) = breaker.admit(at: origin).0 {
            _ = breaker.record(failure: true, ticket: ticket, at: origin)
        }
        let machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get), concurrentAttempts: true)
        return (machine, decider)
    }

    /// Starts the first copy, whose probe the store grants.
    static func firstCopy(_ machine: inout RequestStateMachine) async -> Bool {
        guard case .claimProbe(let claim) = machine.start(at: at(0)) else {
            Issue.record("the first copy did not claim its probe")
            return false
        }
        guard case .hedge(let start?, .milliseconds(100)) = machine.probeClaimed(await claim.settle(), at: at(1)),
            start.number == 1
        else {
            Issue.record("the first copy did not start with a hedge timer")
            return false
        }
        return true
    }

    @Test("A second copy the store refuses does not start, though the local breaker has a probe left")
    func refusedCopyDoesNotStart() async throws {
        let store = ClaimingBreakerStore(permits: 1)
        var (machine, _) = Self.machine(store: store)
        guard await Self.firstCopy(&machine) else { return }
        guard case .claimProbe(let claim) = machine.hedgeDelayElapsed(at: Self.at(101)) else {
            Issue.record("the second copy was admitted without claiming its probe")
            return
        }
        // The machine neither claimed nor decided on the local breaker.
        #expect(store.calls.withLock { $0 } == ClaimingBreakerStore.Calls(claims: 1))
        guard case .hedge(start: nil, nextHedgeIn: nil) = machine.probeClaimed(await claim.settle(), at: Self.at(105)) else {
            Issue.record("a refused copy started")
            return
        }
        #expect(store.calls.withLock { $0 } == ClaimingBreakerStore.Calls(claims: 2))
        #expect(machine.attemptsInFlight == [1])
        var generator = SplitMix64(seed: 1)
        guard case .fail(let failure) = machine.attemptFinished(1, .status(503), at: Self.at(200), using: &generator) else {
            Issue.record("the request did not end with its only copy")
            return
        }
        #expect(failure.reason == .circuitOpen && machine.rejectedByBreaker)
        #expect(failure.attempts.count == 1)
    }

    @Test("The copies in flight go on while a claim is out; the granted copy starts after them")
    func copiesGoOnWhileClaiming() async throws {
        let store = ClaimingBreakerStore(permits: 2)
        var (machine, _) = Self.machine(store: store)
        guard await Self.firstCopy(&machine) else { return }
        guard case .claimProbe(let claim) = machine.hedgeDelayElapsed(at: Self.at(101)) else {
            Issue.record("the second copy was admitted without claiming its probe")
            return
        }
        // A timer while the claim is out starts nothing.
        guard case .hedge(start: nil, nextHedgeIn: nil) = machine.hedgeDelayElapsed(at: Self.at(102)) else {
            Issue.record("a copy started while a claim was out")
            return
        }
        let answer = await claim.settle()
        // The first copy fails before the answer reaches the machine: the
        // request waits for the claimed copy instead of ending.
        var generator = SplitMix64(seed: 1)
        guard case .hedge(start: nil, _) = machine.attemptFinished(1, .status(503), at: Self.at(150), using: &generator) else {
            Issue.record("the request ended while a copy's claim was out")
            return
        }
        guard case .hedge(let start?, nextHedgeIn: nil) = machine.probeClaimed(answer, at: Self.at(160)) else {
            Issue.record("the granted copy did not start")
            return
        }
        #expect(start.number == 2)
        #expect(machine.attemptsInFlight == [2])
        guard case .succeed = machine.attemptFinished(2, .status(200), at: Self.at(200), using: &generator) else {
            Issue.record("the second copy's success did not end the request")
            return
        }
        #expect(store.calls.withLock { $0.notWaited } == 0)
    }

    @Test("An in-memory breaker admits a hedged probe at once, without a claim")
    func inMemoryNeverClaims() {
        var (machine, _) = Self.machine(store: InMemoryRetryStateStore())
        guard case .hedge(let start?, _) = machine.start(at: Self.at(0)), start.number == 1 else {
            Issue.record("the first copy did not start")
            return
        }
        guard case .hedge(let second?, _) = machine.hedgeDelayElapsed(at: Self.at(101)) else {
            Issue.record("the in-memory breaker did not admit its second probe")
            return
        }
        #expect(second.number == 2)
    }
}
