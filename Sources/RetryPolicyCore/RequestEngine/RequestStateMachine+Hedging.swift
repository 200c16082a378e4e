/// Hedging: copies of one request in flight together (see
/// ``HedgingPolicy``).
extension RequestStateMachine {
    /// An attempt of a hedged request in flight.
    struct InFlight: Sendable {
        var number: Int
        var startedAt: Duration
        var ticket: CircuitBreakerStateMachine.Ticket?
        /// What starting it took from the budget (refunded if it wins).
        var cost: Int
    }

    /// Why a hedged request starts no further copy.
    struct Halt: Sendable {
        var error: SDKError
        var reason: StopReason
        /// What refused the next copy, when admission did; a circuit
        /// breaker's or cooldown's error is reported rather than the last
        /// attempt's.
        var rejection: Admission.Rejection?
    }

    /// The state of a hedged request.
    struct Hedge: Sendable {
        let delay: Duration
        /// Attempts started so far.
        var started = 0
        var inFlight: [InFlight] = []
        /// When (time since the request began) the next copy starts.
        var nextAt: Duration?
        /// A non-fatal outcome's decision already paid for the next copy.
        var prepaid: Int?
        /// The next copy is a half-open probe whose permit the driver is
        /// claiming (``Action/claimProbe(_:)``): what the copy paid, given
        /// back if it never starts. No other copy starts meanwhile.
        var claimPaid: Int?
        /// Why no further copy starts, with the error a request that ends
        /// for that reason reports.
        var halted: Halt?
    }

    final class HedgeBox: @unchecked Sendable {
        var value: Hedge
        init(_ value: Hedge) { self.value = value }
    }

    /// Stores `hedge` as the request's state, in place when nothing else
    /// holds the box (a copy of the machine does).
    mutating func store(_ hedge: Hedge) {
        if case .hedging(var box) = state {
            // Drop the state's reference, so that the box is unique unless
            // a copy of the machine holds it too.
            state = .idle
            if isKnownUniquelyReferenced(&box) {
                box.value = hedge
                state = .hedging(box)
                return
            }
        }
        state = .hedging(HedgeBox(hedge))
    }

    /// The first copy, admitted: the request is hedged from here on.
    mutating func startHedging(
        delay: Duration, ticket: CircuitBreakerStateMachine.Ticket?, timeLimit: Duration?, at time: RequestTime
    ) -> Action {
        var hedge = Hedge(delay: delay)
        hedge.started = 1
        hedge.inFlight = [InFlight(number: 1, startedAt: time.elapsed, ticket: ticket, cost: 0)]
        let more = decider.policy.attempts > 1
        hedge.nextAt = more ? time.elapsed + delay : nil
        state = .hedging(HedgeBox(hedge))
        return .hedge(start: HedgedAttempt(number: 1, timeLimit: timeLimit), nextHedgeIn: more ? delay : nil)
    }

    /// Hedged attempt `number` finished.
    mutating func copyFinished<G: RandomNumberGenerator>(
        _ number: Int,
        _ outcome: AttemptOutcome,
        at time: RequestTime,
        producedValue: Bool,
        thrown: (any Error)?,
        using generator: inout G
    ) -> Action {
        guard case .hedging(let box) = state, let index = box.value.inFlight.firstIndex(where: { $0.number == number }) else {
            preconditionFailure("attemptFinished(\(number), ...) follows the start of attempt \(number)")
        }
        var hedge = box.value
        let finished = hedge.inFlight.remove(at: index)
        recordInBreaker(outcome, ticket: finished.ticket, at: time)
        input.outcome = outcome
        input.elapsed = time.elapsed
        input.now = time.wall
        input.lastRetryCost = finished.cost
        input.attempt = hedge.started
        // Deciding as if attempt `started` failed asks whether one more copy
        // may be paid for; with every copy started (or none to come), as
        // the last attempt, which pays for nothing.
        let mayStartMore =
            hedge.started < decider.policy.attempts && hedge.halted == nil && hedge.prepaid == nil
            && hedge.claimPaid == nil
        var asked = input
        asked.attempt = mayStartMore ? hedge.started : decider.policy.attempts
        var decision = decider.decide(asked, using: &generator, backoff: false, defersWaitingPayment: false)
        if !producedValue { Self.refuseSuccessWithoutValue(&decision, outcome) }
        if decision.refreshCredentials, case .retry = decision.action {
            // Copies in flight carry the old credentials: a hedged request
            // does not refresh them, it stops.
            decider.refundUnstartedHedge(decision.budgetCost)
            var error = SDKError(kind: decision.errorKind ?? .internalError)
            if case .response(let status, _) = outcome { error.statusCode = status }
            if case .grpc(let status, _) = outcome { error.grpcStatus = status }
            error.detail = "a hedged request does not refresh credentials"
            decision = Decision(
                action: .stop(error, .notRetryable), ruleIndex: decision.ruleIndex, ruleLocation: decision.ruleLocation)
        }
        let action = decision.action
        let budgetCost = decision.budgetCost
        let record = Self.record(
            number: number, outcome, startedAt: finished.startedAt, at: time, decision: decision,
            producedValue: producedValue, thrown: thrown)

        switch action {
        case .success:
            settle(hedge, record: record, at: time)
            return .succeed
        case .stop(var error, let reason):
            if error.detail == nil, let thrown { error.detail = String(describing: thrown) }
            switch reason {
            case .notRetryable, .cancelled, .retryAfterTooLong, .serverPushback:
                // Fatal: it ends the request, whatever is in flight (gRFC
                // A6: after a pushback that says not to retry, no further
                // hedged requests are sent).
                settle(hedge, record: record, at: time)
                return .fail(RetryFailure(error: error, reason: reason, attempts: history, underlyingError: thrown))
            case .attemptsExhausted, .deadlineExceeded, .budgetExhausted, .notIdempotent, .circuitOpen:
                // Non-fatal. When this decision was asked to pay for another
                // copy and could not (budget, deadline), no further copy
                // starts; otherwise its `attempts_exhausted` only says that
                // it paid for none.
                append(record)
                if mayStartMore { hedge.halted = Halt(error: error, reason: reason, rejection: nil) }
                store(hedge)
                if hedge.inFlight.isEmpty && hedge.claimPaid == nil && nextHedgeIn(hedge, at: time) == nil {
                    return finishHedged(hedge, error: error, reason: reason, thrown: thrown)
                }
                return awaitingHedges(hedge, at: time)
            }
        case .retry(let delay):
            // Non-fatal, and the budget paid for the next copy: it starts at
            // once, or after the server's delay.
            append(record)
            hedge.prepaid = budgetCost
            hedge.nextAt = time.elapsed + delay
            store(hedge)
            return awaitingHedges(hedge, at: time)
        }
    }

    /// The hedging delay the last ``Action/hedge(start:nextHedgeIn:)``
    /// asked for has passed at `time`: start the next copy, if the budget,
    /// the cooldown, the circuit breaker and the deadline allow one. A copy
    /// that is a half-open probe whose permit the breaker's store must
    /// claim, waiting, is handed to the driver first
    /// (``Action/claimProbe(_:)``), like a sequential attempt.
    public mutating func hedgeDelayElapsed(at time: RequestTime) -> Action {
        guard case .hedging(let box) = state else { preconditionFailure("hedgeDelayElapsed follows hedge") }
        var hedge = box.value
        breakerTransition = nil
        guard hedge.claimPaid == nil, hedge.halted == nil, hedge.started < decider.policy.attempts,
            let nextAt = hedge.nextAt
        else {
            return .hedge(start: nil, nextHedgeIn: nil)
        }
        if time.elapsed < nextAt { return .hedge(start: nil, nextHedgeIn: nextAt - time.elapsed) }
        let payment: Payment = hedge.prepaid.map { .paid($0) } ?? (hedge.started == 0 ? .paid(0) : .onStart)
        var (answer, limit, cost) = admissionBeforeBreaker(at: time, checkingCooldown: true, payment: payment)
        if case .proceed = answer {
            guard let decided = decider.state.admitThroughBreakerUnlessClaiming(at: time.wall) else {
                guard let breaker = decider.breaker else { preconditionFailure("only a circuit breaker claims a probe") }
                hedge.prepaid = nil
                hedge.nextAt = nil
                hedge.claimPaid = cost
                store(hedge)
                return .claimProbe(ProbeClaim(breaker: breaker, at: time.wall))
            }
            (answer, limit, cost) = throughBreaker(decided, timeLimit: limit, cost: cost)
        }
        return admittedCopy(answer, timeLimit: limit, cost: cost, hedge, at: time)
    }

    /// The breaker answered the probe claim of the copy that
    /// ``hedgeDelayElapsed(at:)`` handed to the driver: the copy starts,
    /// unless the deadline passed while it waited (its permit is then given
    /// back) or the store refused it (no further copy starts).
    mutating func hedgedProbeClaimed(_ answer: (Admission, CircuitBreakerTransition?), at time: RequestTime) -> Action {
        guard case .hedging(let box) = state, let paid = box.value.claimPaid else {
            preconditionFailure("probeClaimed follows claimProbe")
        }
        var hedge = box.value
        hedge.claimPaid = nil
        breakerTransition = answer.1
        var (admission, limit, cost) = admissionBeforeBreaker(at: time, checkingCooldown: false, payment: .paid(paid))
        if case .proceed = admission {
            (admission, limit, cost) = throughBreaker(answer, timeLimit: limit, cost: paid)
        } else if case .proceed(let ticket?) = answer.0 {
            decider.breaker?.release(ticket)
        }
        return admittedCopy(admission, timeLimit: limit, cost: cost, hedge, at: time)
    }

    /// Starts the next copy, waits, or starts no further copy, as its
    /// admission answered.
    private mutating func admittedCopy(
        _ answer: Admission, timeLimit limit: Duration?, cost: Int, _ hedge: Hedge, at time: RequestTime
    ) -> Action {
        var hedge = hedge
        switch answer {
        case .wait(let remaining):
            hedge.nextAt = time.elapsed + remaining
            store(hedge)
            return .hedge(start: nil, nextHedgeIn: remaining)
        case .reject(let error, let rejection):
            hedge.prepaid = nil
            hedge.nextAt = nil
            hedge.halted = Halt(error: error, reason: rejection.stopReason, rejection: rejection)
            store(hedge)
            guard hedge.inFlight.isEmpty else { return .hedge(start: nil, nextHedgeIn: nil) }
            return finishHedged(hedge, error: error, reason: rejection.stopReason, thrown: nil)
        case .proceed(let ticket):
            hedge.prepaid = nil
            hedge.started += 1
            input.attempt = hedge.started
            hedge.inFlight.append(InFlight(number: hedge.started, startedAt: time.elapsed, ticket: ticket, cost: cost))
            let more = hedge.started < decider.policy.attempts
            hedge.nextAt = more ? time.elapsed + hedge.delay : nil
            store(hedge)
            return .hedge(start: HedgedAttempt(number: hedge.started, timeLimit: limit), nextHedgeIn: more ? hedge.delay : nil)
        }
    }

    /// How long until the next copy starts, if one is still to start.
    private func nextHedgeIn(_ hedge: Hedge, at time: RequestTime) -> Duration? {
        guard hedge.halted == nil, hedge.started < decider.policy.attempts, let nextAt = hedge.nextAt else { return nil }
        return max(.zero, nextAt - time.elapsed)
    }

    /// Nothing to start now: keep the attempts in flight and the pending
    /// timer (or start the next copy if it is due).
    private mutating func awaitingHedges(_ hedge: Hedge, at time: RequestTime) -> Action {
        let next = nextHedgeIn(hedge, at: time)
        if next == .zero { return hedgeDelayElapsed(at: time) }
        return .hedge(start: nil, nextHedgeIn: next)
    }

    /// The last copy of a hedged request failed: the request fails with it,
    /// or with the reason no further copy started.
    private mutating func finishHedged(_ hedge: Hedge, error: SDKError, reason: StopReason, thrown: (any Error)?) -> Action {
        state = .finished
        var error = error
        var reason = reason
        if let halted = hedge.halted {
            reason = halted.reason
            if let rejection = halted.rejection {
                self.rejection = rejection
                if rejection.reportsOwnError { error = halted.error }
            }
        }
        return .fail(RetryFailure(error: error, reason: reason, attempts: history, underlyingError: thrown))
    }

    /// A copy settled the request: the copies still in flight are
    /// cancelled (each gets a record before the deciding one, which stays
    /// last, and gives its breaker ticket back), and the request is over.
    private mutating func settle(_ hedge: Hedge, record: consuming AttemptRecord, at time: RequestTime) {
        for loser in hedge.inFlight {
            let error = SDKError(kind: .cancelled, transport: .cancelled)
            append(
                AttemptRecord(
                    number: loser.number, outcome: .transport(.cancelled), startedAt: loser.startedAt,
                    duration: time.elapsed - loser.startedAt,
                    decision: Decision(action: .stop(error, .cancelled)),
                    errorDescription: "cancelled: another attempt settled the request"))
        }
        releaseHedge(hedge)
        append(record)
        state = .finished
    }

    /// Gives back what the copies in flight hold: their breaker tickets,
    /// and what was paid for a copy that will not start.
    func releaseHedge(_ hedge: Hedge) {
        if let breaker = decider.breaker {
            for attempt in hedge.inFlight {
                if let ticket = attempt.ticket { breaker.release(ticket) }
            }
        }
        if let prepaid = hedge.prepaid { decider.refundUnstartedHedge(prepaid) }
        if let claimPaid = hedge.claimPaid, claimPaid > 0 { decider.refundUnstartedHedge(claimPaid) }
    }
}
