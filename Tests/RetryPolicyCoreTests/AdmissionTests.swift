import RetryPolicyCore
import Testing

/// One admission type from the circuit breaker, through the ledger and the
/// decider, to the request state machine.
@Suite struct AdmissionTests {
    static let origin = Timestamp(nanosecondsSince1970: 1_700_000_000_000_000_000)

    @Test("Each rejection stops the request with its own reason")
    func stopReasons() {
        #expect(Admission.Rejection.cooldown.stopReason == .notRetryable)
        #expect(Admission.Rejection.breaker.stopReason == .circuitOpen)
        #expect(Admission.Rejection.deadline.stopReason == .deadlineExceeded)
        #expect(Admission.Rejection.budget.stopReason == .budgetExhausted)
        #expect([Admission.Rejection.cooldown, .breaker, .deadline, .budget].map(\.reportsOwnError) == [true, true, false, false])
    }

    @Test("The breaker's rejection reaches the request unchanged: its error, as .breaker, stopping with circuit_open")
    func breakerRejectionReachesRequest() throws {
        var policy = BudgetStyleTests.policy(.awsStandard, attempts: 1)
        policy.breaker = CircuitBreakerConfiguration(consecutiveFailures: 1, breakDuration: .seconds(10))
        let decider = RetryDecider(policy: policy)
        var generator = SplitMix64(seed: 1)
        let time = RequestTime(elapsed: .zero, wall: Self.origin)

        var first = RequestStateMachine(decider: decider)
        guard case .startAttempt = first.start(at: time) else {
            Issue.record("a closed breaker refused the first attempt")
            return
        }
        _ = first.attemptFinished(.status(503), at: time, using: &generator)
        #expect(decider.breaker?.state == .open(until: Self.origin + .seconds(10)))

        var second = RequestStateMachine(decider: decider)
        guard case .fail(let failure) = second.start(at: time) else {
            Issue.record("an open breaker admitted an attempt")
            return
        }
        let breaker = try #require(decider.breaker)
        #expect(breaker.admit(at: Self.origin).0 == .reject(failure.error, .breaker))
        #expect(failure.reason == .circuitOpen)
        #expect(second.rejection == .breaker)
        #expect(second.rejectedByBreaker && !second.rejectedByCooldown)
    }
}
