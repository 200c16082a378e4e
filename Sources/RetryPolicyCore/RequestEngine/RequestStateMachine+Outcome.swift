/// An attempt's outcome: the decision, the breaker's count, the record,
/// and what the request does next.
extension RequestStateMachine {
    /// The attempt in progress finished at `time` with `outcome`.
    ///
    /// - Parameters:
    ///   - outcome: the response's status and headers, or the transport
    ///     failure.
    ///   - time: when the attempt finished.
    ///   - producedValue: whether the attempt produced something to return;
    ///     a rule that calls a thrown error or a timeout a success is a
    ///     policy mistake and stops the request.
    ///   - thrown: the error the attempt threw, if it threw.
    ///   - override: what the caller's code says about a failed attempt
    ///     (a sequential one; hedged copies follow the policy).
    ///   - generator: the source of jitter.
    public mutating func attemptFinished<G: RandomNumberGenerator>(
        _ outcome: AttemptOutcome,
        at time: RequestTime,
        producedValue: Bool = true,
        thrown: (any Error)? = nil,
        override: DecisionOverride = .asPolicySays,
        using generator: inout G
    ) -> Action {
        switch state {
        case .attempting(let startedAt, let ticket):
            return sequentialAttemptFinished(
                outcome, startedAt: startedAt, ticket: ticket, at: time, producedValue: producedValue, thrown: thrown,
                override: override, using: &generator)
        case .hedging(let box) where box.value.inFlight.count == 1:
            return copyFinished(
                box.value.inFlight[0].number, outcome, at: time, producedValue: producedValue, thrown: thrown,
                using: &generator)
        case .idle, .backingOff, .coolingDown, .rateLimited, .refreshing, .paying, .claiming, .hedging, .finished:
            preconditionFailure("attemptFinished follows startAttempt")
        }
    }

    /// Attempt `number` finished at `time` with `outcome` (the other
    /// parameters as in ``attemptFinished(_:at:producedValue:thrown:override:using:)``):
    /// for a hedged request, one of its copies.
    public mutating func attemptFinished<G: RandomNumberGenerator>(
        _ number: Int,
        _ outcome: AttemptOutcome,
        at time: RequestTime,
        producedValue: Bool = true,
        thrown: (any Error)? = nil,
        using generator: inout G
    ) -> Action {
        switch state {
        case .hedging:
            return copyFinished(number, outcome, at: time, producedValue: producedValue, thrown: thrown, using: &generator)
        case .attempting(let startedAt, let ticket) where number == input.attempt:
            return sequentialAttemptFinished(
                outcome, startedAt: startedAt, ticket: ticket, at: time, producedValue: producedValue, thrown: thrown,
                override: .asPolicySays, using: &generator)
        case .idle, .attempting, .backingOff, .coolingDown, .rateLimited, .refreshing, .paying, .claiming, .finished:
            preconditionFailure("attemptFinished(\(number), ...) follows the start of attempt \(number)")
        }
    }

    /// The attempt in progress finished at `time` with `outcome`, and a
    /// driver already retried it plainly after `delay` (see
    /// `RetryDecider.plainRetryDelay(after:attempt:previousDelay:rules:method:using:)`):
    /// the machine makes the decision again with that delay instead of a
    /// new draw, records it, and answers as ``attemptFinished(_:at:producedValue:thrown:override:using:)``
    /// would have.
    @usableFromInline package mutating func replayRetry(
        _ outcome: AttemptOutcome, at time: RequestTime, producedValue: Bool, thrown: (any Error)?, delay: Duration
    ) -> Action {
        guard case .attempting(let startedAt, let ticket) = state else {
            preconditionFailure("replayRetry follows startAttempt")
        }
        // No draw is made: the delay is given.
        var generator = SplitMix64(seed: 0)
        return sequentialAttemptFinished(
            outcome, startedAt: startedAt, ticket: ticket, at: time, producedValue: producedValue, thrown: thrown,
            override: .asPolicySays, chosenDelay: delay, using: &generator)
    }

    private mutating func sequentialAttemptFinished<G: RandomNumberGenerator>(
        _ outcome: AttemptOutcome,
        startedAt: Duration,
        ticket: CircuitBreakerStateMachine.Ticket?,
        at time: RequestTime,
        producedValue: Bool,
        thrown: (any Error)?,
        override: DecisionOverride,
        chosenDelay: Duration? = nil,
        using generator: inout G
    ) -> Action {
        input.outcome = outcome
        input.elapsed = time.elapsed
        input.now = time.wall
        var decision = decider.decide(
            input, using: &generator, backoff: true, defersWaitingPayment: true, chosenDelay: chosenDelay)
        if override != .asPolicySays {
            decision = decider.applying(override, to: decision, input: input, defersWaitingPayment: true)
        }
        recordInBreaker(outcome, ticket: ticket, at: time)
        recordInRateLimiter(decision.errorKind, at: time)
        if !producedValue { Self.refuseSuccessWithoutValue(&decision, outcome) }
        if let kind = decision.pendingPayment, let budget = decider.budget {
            state = .paying(
                PendingRetry(
                    decision: decision, outcome: outcome, startedAt: startedAt, finishedAt: time,
                    producedValue: producedValue, thrown: thrown))
            return .payBudget(BudgetPayment(kind: kind, cost: decision.budgetCost, budget: budget))
        }
        return conclude(
            decision, outcome, startedAt: startedAt, finishedAt: time, producedValue: producedValue, thrown: thrown,
            at: time)
    }

    /// The tail of a sequential attempt's outcome once its decision is
    /// final (paid for, when a retry's payment waited): the record, then
    /// success, failure, or the retry's wait. `finishedAt` is when the
    /// attempt finished, `time` the moment of this event.
    mutating func conclude(
        _ decision: consuming Decision, _ outcome: AttemptOutcome, startedAt: Duration, finishedAt: RequestTime,
        producedValue: Bool, thrown: (any Error)?, at time: RequestTime
    ) -> Action {
        // What the next step needs, read before the decision moves into
        // the history (a retry's action is a duration, copied for free).
        let action = decision.action
        let budgetCost = decision.budgetCost
        let refresh = decision.refreshCredentials
        let serverDirected = decision.serverDirected
        if recording == .none {
            lastErrorKind = decision.errorKind ?? .internalError
        } else {
            append(
                Self.record(
                    number: input.attempt, outcome, startedAt: startedAt, at: finishedAt, decision: decision,
                    producedValue: producedValue, thrown: thrown))
        }

        switch action {
        case .success:
            state = .finished
            return .succeed
        case .stop(let error, let reason):
            state = .finished
            return .fail(RetryFailure(error: error, reason: reason, attempts: history, describing: thrown))
        case .retry(let delay):
            input.previousDelay = delay
            input.lastRetryCost = budgetCost
            if refresh { input.credentialRefreshes += 1 }
            input.attempt += 1
            if delay > .zero {
                state = .backingOff(refresh: refresh)
                return .wait(delay, reason: serverDirected ? .server : .backoff)
            }
            return afterBackoff(refresh: refresh, at: time)
        }
    }

    /// An attempt's record; a failed attempt keeps what it threw (or that
    /// it produced no value).
    static func record(
        number: Int, _ outcome: AttemptOutcome, startedAt: Duration, at time: RequestTime, decision: consuming Decision,
        producedValue: Bool, thrown: (any Error)?
    ) -> AttemptRecord {
        let failed: Bool
        if case .success = decision.action { failed = false } else { failed = true }
        if failed, let thrown {
            return AttemptRecord(
                number: number, outcome: outcome, startedAt: startedAt, duration: time.elapsed - startedAt,
                decision: decision, thrown: thrown)
        }
        return AttemptRecord(
            number: number, outcome: outcome, startedAt: startedAt, duration: time.elapsed - startedAt,
            decision: decision, errorDescription: failed && !producedValue ? "timed out" : nil)
    }

    /// Counts a finished attempt's outcome in the circuit breaker that
    /// admitted it (with `ticket`), keeping the change it causes.
    mutating func recordInBreaker(_ outcome: AttemptOutcome, ticket: CircuitBreakerStateMachine.Ticket?, at time: RequestTime) {
        breakerTransition = nil
        guard let ticket, let breaker = decider.breaker else { return }
        breakerTransition = breaker.record(
            failure: decider.compiledPolicy.breakerCountsFailure(
                outcome, method: input.method, failures: breaker.configuration.failures),
            ticket: ticket, at: time.wall)
    }

    /// A rule that calls an attempt without a value (a thrown error, a
    /// timeout) a success is a policy mistake: the request stops.
    static func refuseSuccessWithoutValue(_ decision: inout Decision, _ outcome: AttemptOutcome) {
        guard case .success = decision.action else { return }
        var error = SDKError(kind: .internalError)
        if case .transport(let transport) = outcome { error.transport = transport }
        if case .condition(let condition) = outcome { error.condition = condition }
        if case .grpc(let status, _) = outcome { error.grpcStatus = status }
        error.detail = "the policy treats \(outcome) as a success, but the operation produced no value"
        decision.action = .stop(error, .notRetryable)
        decision.errorKind = .internalError
    }
}
