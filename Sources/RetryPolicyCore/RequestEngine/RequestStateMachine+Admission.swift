/// Admission: what every attempt passes before it starts, sequential
/// attempts and hedged copies alike.
extension RequestStateMachine {
    /// What admission decided for the next attempt.
    enum Admission {
        /// Start it, with this breaker ticket and time limit; `cost` is
        /// what starting it took from the retry budget (a hedged copy pays
        /// when it starts).
        case admitted(ticket: CircuitBreakerStateMachine.Ticket?, timeLimit: Duration?, cost: Int)
        /// A cooldown holds it back this long.
        case wait(Duration)
        /// It never starts: the request (or, hedged, its copies) stops with
        /// this error. `rejection` says when a cooldown or the circuit
        /// breaker refused it, so that the request reports their error.
        case refused(SDKError, StopReason, rejection: Rejection?)
    }

    enum Rejection {
        case cooldown
        case breaker
    }

    /// How an attempt is paid for from the retry budget.
    enum Payment {
        /// Already paid (a retry's decision paid for it; 0 for a first
        /// attempt): refunded if the attempt never starts.
        case paid(Int)
        /// A hedged copy that pays when it starts.
        case onStart
    }

    /// One admission step, in a fixed order: the cooldown (unless the
    /// driver admitted the attempt itself), the total deadline (which also
    /// cuts the attempt's time limit), the budget, then the circuit
    /// breaker, last because admitting takes one of a half-open breaker's
    /// probes. Whatever was paid for an attempt that does not start is
    /// refunded here.
    mutating func admission(at time: RequestTime, checkingCooldown: Bool, payment: Payment) -> Admission {
        if checkingCooldown {
            switch decider.admit(now: time.wall) {
            case .proceed:
                break
            case .wait(let remaining):
                if let total = totalLimit, time.elapsed + remaining >= total {
                    refund(payment)
                    var error = decider.cooldown.active(at: time.wall)?.error ?? lastError
                    error.retryAfter = remaining
                    return .refused(error, .deadlineExceeded, rejection: nil)
                }
                return .wait(remaining)
            case .reject(let error):
                refund(payment)
                return .refused(error, .notRetryable, rejection: .cooldown)
            }
        }
        var limit = perAttemptLimit
        if let total = totalLimit {
            let remaining = total - time.elapsed
            if remaining <= .zero {
                refund(payment)
                var error = lastError
                error.detail = error.detail ?? "total deadline of \(total.formattedForHumans) reached"
                return .refused(error, .deadlineExceeded, rejection: nil)
            }
            limit = limit.map { min($0, remaining) } ?? remaining
        }
        let cost: Int
        switch payment {
        case .paid(let paid):
            cost = paid
        case .onStart:
            guard let paid = decider.payForHedge() else {
                var error = lastError
                error.detail = "the retry budget pays for no further hedge"
                return .refused(error, .budgetExhausted, rejection: nil)
            }
            cost = paid
        }
        var ticket: CircuitBreakerStateMachine.Ticket?
        if let breaker = decider.breaker {
            let (admission, transition) = breaker.admit(at: time.wall)
            // An attempt's result may have changed the breaker just before
            // this admission, within the same event: keep that change.
            if let transition { breakerTransition = transition }
            switch admission {
            case .proceed(let granted):
                ticket = granted
            case .reject(let retryAfter):
                refund(.paid(cost))
                var error = SDKError(kind: breaker.configuration.error, retryAfter: retryAfter)
                error.detail = retryAfter == nil ? "circuit half-open, every probe in flight" : "circuit open"
                return .refused(error, .circuitOpen, rejection: .breaker)
            }
        }
        return .admitted(ticket: ticket, timeLimit: limit, cost: cost)
    }

    private func refund(_ payment: Payment) {
        if case .paid(let cost) = payment, cost > 0 { decider.refundUnstartedHedge(cost) }
    }

    /// Admits the next attempt of the request, which starts it, waits, or
    /// ends the request.
    mutating func admit(at time: RequestTime, checkingCooldown: Bool = true) -> Action {
        switch admission(at: time, checkingCooldown: checkingCooldown, payment: .paid(0)) {
        case .admitted(let ticket, let limit, _):
            if hedges, let hedging = decider.policy.hedging {
                return startHedging(delay: hedging.delay, ticket: ticket, timeLimit: limit, at: time)
            }
            state = .attempting(startedAt: time.elapsed, ticket: ticket)
            return .startAttempt(number: input.attempt, timeLimit: limit)
        case .wait(let remaining):
            state = .coolingDown
            return .wait(remaining, reason: .cooldown)
        case .refused(let error, let reason, let rejection):
            state = .finished
            switch rejection {
            case .cooldown: rejectedByCooldown = true
            case .breaker: rejectedByBreaker = true
            case nil: break
            }
            return .fail(RetryFailure(error: error, reason: reason, attempts: history))
        }
    }
}
