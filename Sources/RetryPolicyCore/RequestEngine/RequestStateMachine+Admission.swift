/// Admission: what every attempt passes before it starts, sequential
/// attempts and hedged copies alike.
extension RequestStateMachine {
    /// How an attempt is paid for from the retry budget.
    enum Payment {
        /// Already paid (a retry's decision paid for it; 0 for a first
        /// attempt): refunded if the attempt never starts.
        case paid(Int)
        /// A hedged copy that pays when it starts.
        case onStart
    }

    /// The steps of admission before the breaker's, in a fixed order: the
    /// cooldown (unless the driver admitted the attempt itself), the total
    /// deadline (which also cuts the attempt's time limit), then the budget.
    /// The circuit breaker comes last, apart (`throughBreaker`, or a probe's
    /// claim handed to the driver), because admitting takes one of a
    /// half-open breaker's probes. Whatever was paid for an attempt that
    /// does not start is refunded here. `.proceed` (without a ticket) means
    /// the breaker is next, with the attempt's `timeLimit` and `cost`, what
    /// starting it took from the retry budget (a hedged copy pays when it
    /// starts); a rejection stops the request (or, hedged, its copies) with
    /// its error and the rejection's reason.
    mutating func admissionBeforeBreaker(
        at time: RequestTime, checkingCooldown: Bool, payment: Payment
    ) -> (admission: Admission, timeLimit: Duration?, cost: Int) {
        if checkingCooldown {
            let admission = decider.admit(now: time.wall)
            switch admission {
            case .proceed:
                break
            case .wait(let remaining):
                if let total = totalLimit, time.elapsed + remaining >= total {
                    refund(payment)
                    var error = decider.cooldown.active(at: time.wall)?.error ?? lastError
                    error.retryAfter = remaining
                    return (.reject(error, .deadline), nil, 0)
                }
                return (admission, nil, 0)
            case .reject:
                refund(payment)
                return (admission, nil, 0)
            }
        }
        var limit = perAttemptLimit
        if let total = totalLimit {
            let remaining = total - time.elapsed
            if remaining <= .zero {
                refund(payment)
                var error = lastError
                error.detail = error.detail ?? "total deadline of \(total.formattedForHumans) reached"
                return (.reject(error, .deadline), nil, 0)
            }
            limit = limit.map { min($0, remaining) } ?? remaining
        }
        let cost: Int
        switch payment {
        case .paid(let paid):
            cost = paid
        case .onStart:
            guard let paid = decider.payForHedge(at: time.wall) else {
                var error = lastError
                error.detail = "the retry budget pays for no further hedge"
                return (.reject(error, .budget), nil, 0)
            }
            cost = paid
        }
        return (.proceed(ticket: nil), limit, cost)
    }

    /// The last step of admission: the breaker's answer, for an attempt
    /// with `timeLimit` that paid `cost` (refunded if it is rejected).
    mutating func throughBreaker(
        _ answer: (Admission, CircuitBreakerTransition?), timeLimit: Duration?, cost: Int
    ) -> (admission: Admission, timeLimit: Duration?, cost: Int) {
        let (admission, transition) = answer
        // An attempt's result may have changed the breaker just before
        // this admission, within the same event: keep that change.
        if let transition { breakerTransition = transition }
        switch admission {
        case .proceed:
            return (admission, timeLimit, cost)
        case .wait:
            preconditionFailure("a circuit breaker admits or rejects")
        case .reject:
            refund(.paid(cost))
            return (admission, nil, 0)
        }
    }

    private func refund(_ payment: Payment) {
        if case .paid(let cost) = payment, cost > 0 { decider.refundUnstartedHedge(cost) }
    }

    /// Admits the next attempt of the request, which starts it, waits, or
    /// ends the request; a half-open probe whose permit the breaker's
    /// store must claim, waiting, is handed to the driver first
    /// (``Action/claimProbe(_:)``). The adaptive rate limiter, if any, is
    /// asked just before the breaker, unless the attempt waited for the
    /// token it reserved (`rateLimiterPaid`).
    mutating func admit(at time: RequestTime, checkingCooldown: Bool = true, rateLimiterPaid: Bool = false) -> Action {
        let (before, limit, _) = admissionBeforeBreaker(at: time, checkingCooldown: checkingCooldown, payment: .paid(0))
        guard case .proceed = before else { return admitted(before, timeLimit: limit, at: time) }
        if !rateLimiterPaid, let limiter = decider.state.rateLimiter, let paced = throughRateLimiter(limiter, at: time) {
            return paced
        }
        guard let answer = decider.state.admitThroughBreakerUnlessClaiming(at: time.wall) else {
            guard let breaker = decider.breaker else { preconditionFailure("only a circuit breaker claims a probe") }
            state = .claiming
            return .claimProbe(ProbeClaim(breaker: breaker, at: time.wall))
        }
        let (admission, timeLimit, _) = throughBreaker(answer, timeLimit: limit, cost: 0)
        return admitted(admission, timeLimit: timeLimit, at: time)
    }

    /// Starts the attempt, waits, or ends the request, as admission
    /// answered.
    mutating func admitted(_ answer: Admission, timeLimit limit: Duration?, at time: RequestTime) -> Action {
        switch answer {
        case .proceed(let ticket):
            if hedges, let hedging = decider.policy.hedging {
                return startHedging(delay: hedging.delay, ticket: ticket, timeLimit: limit, at: time)
            }
            state = .attempting(startedAt: time.elapsed, ticket: ticket)
            return .startAttempt(number: input.attempt, timeLimit: limit)
        case .wait(let remaining):
            state = .coolingDown
            return .wait(remaining, reason: .cooldown)
        case .reject(let error, let rejection):
            state = .finished
            self.rejection = rejection
            return .fail(RetryFailure(error: error, reason: rejection.stopReason, attempts: history))
        }
    }
}
