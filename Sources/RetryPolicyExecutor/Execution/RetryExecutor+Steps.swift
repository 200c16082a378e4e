import RetryPolicyCore

/// The steps both drivers (sequential and hedged) share: telling the
/// machine what happened, waiting, refreshing, and ending the request. What
/// each step reports goes through the one fan-out in
/// `RetryExecutor+Reporting.swift`.
extension RetryExecutor {
    /// The wall-clock and request-relative time of `instant`; for a
    /// request that is not timed (no instants read), a time its policy
    /// does not look at.
    @inlinable
    func time(_ instant: Duration?, since start: Duration?) -> RequestTime {
        guard let instant, let start else { return .untimed }
        return RequestTime(elapsed: instant - start, wall: wallTime(at: instant))
    }

    /// Reads the clock into `now`.
    @inlinable
    func read(_ now: inout Duration?) {
        now = moment()
    }

    /// Starts the machine: with the first attempt `run` already made, or
    /// with admission when there is none.
    @inlinable @inline(never)
    func begin<Value, G: RandomNumberGenerator>(
        _ machine: inout RequestStateMachine,
        first: FirstAttempt<Value>?,
        start: Duration?,
        now: inout Duration?,
        lastValue: inout Value?,
        request: RetryRequest,
        using generator: inout G,
        judge: (_ result: Result<Value, any Error>, _ attempt: Int?, _ judged: AttemptOutcome?) -> RequestHooks<Value>.Judgement
    ) throws(RetryFailure) -> RequestStateMachine.Action {
        guard let first else {
            // The first try is not held back by cancellation: see
            // `execute`.
            let action = machine.start(at: time(start, since: start))
            reportBreaker(of: machine, request: request)
            return action
        }
        let startedAt = time(start, since: start)
        var action = machine.startAdmitted(at: startedAt)
        // The plain driver's retries, made again by the machine with the
        // delays they had: an untimed request's, so every event is at its
        // start.
        for (index, retry) in first.earlier.enumerated() {
            guard case .startAttempt = action else { return action }
            action = machine.replayRetry(
                retry.outcome, at: startedAt, producedValue: retry.thrown == nil, thrown: retry.thrown,
                delay: retry.delay)
            if first.cancelledInWait && index == first.earlier.count - 1 {
                throw cancellation(&machine, request: request, start: start)
            }
            if case .wait = action { action = machine.waitFinished(at: startedAt) }
        }
        guard case .startAttempt = action, let result = first.result else { return action }
        now = first.end
        return try attemptFinished(
            result, number: nil, machine: &machine, end: first.end, start: start, lastValue: &lastValue,
            request: request, using: &generator, judge: judge, judged: first.judged, judgement: first.judgement)
    }

    /// Judges an attempt's result, tells the machine, and reports the
    /// attempt.
    ///
    /// A value that arrived is kept even if the caller cancelled just
    /// after: the work is done. A failure under cancellation is the
    /// cancellation, whatever the operation threw; the attempt is
    /// recorded with what it threw.
    @inlinable @inline(never)
    func attemptFinished<Value, G: RandomNumberGenerator>(
        _ result: AttemptResult<Value>,
        number: Int?,
        machine: inout RequestStateMachine,
        end: Duration?,
        start: Duration?,
        lastValue: inout Value?,
        request: RetryRequest,
        using generator: inout G,
        judge: (_ result: Result<Value, any Error>, _ attempt: Int?, _ judged: AttemptOutcome?) -> RequestHooks<Value>.Judgement,
        judged: AttemptOutcome? = nil,
        judgement given: RequestHooks<Value>.Judgement? = nil,
        reportsRecord: Bool = true
    ) throws(RetryFailure) -> RequestStateMachine.Action {
        if case .value = result {} else if Task.isCancelled {
            var thrown: (any Error)?
            if case .failure(let error) = result { thrown = error }
            throw cancellation(&machine, request: request, start: start, at: end, thrown: thrown)
        }
        let time = time(end, since: start)
        // The machine's attempt in progress, or the hedged copy `number`.
        let sequential = number == nil
        let number = number ?? machine.attempt
        let action: RequestStateMachine.Action
        switch result {
        case .value(let returned):
            let judgement = given ?? judge(.success(returned), sequential ? number : nil, judged)
            lastValue = returned
            action =
                sequential
                ? machine.attemptFinished(
                    judgement.outcome, at: time, producedValue: true, override: judgement.override, using: &generator)
                : machine.attemptFinished(number, judgement.outcome, at: time, producedValue: true, using: &generator)
        case .failure(let error):
            lastValue = nil
            let judgement = given ?? judge(.failure(error), sequential ? number : nil, nil)
            action =
                sequential
                ? machine.attemptFinished(
                    judgement.outcome, at: time, producedValue: false, thrown: error, override: judgement.override,
                    using: &generator)
                : machine.attemptFinished(
                    number, judgement.outcome, at: time, producedValue: false, thrown: error, using: &generator)
        case .timedOut:
            lastValue = nil
            action = machine.attemptFinished(number, .transport(.timeout), at: time, producedValue: false, using: &generator)
        }
        guard reportsRecord else { return action }
        // A retry that waits for its payment is recorded once it is paid.
        if case .payBudget = action { return action }
        reportLastRecord(of: machine, request: request, start: start)
        return action
    }

    /// Pays for a retry from a budget whose store may wait: awaits the
    /// store (never blocking a thread), then tells the machine the answer
    /// and reports the attempt it then records.
    @inlinable
    func payBudget(
        _ payment: BudgetPayment, machine: inout RequestStateMachine, now: inout Duration?, start: Duration?,
        request: RetryRequest
    ) async -> RequestStateMachine.Action {
        let granted = await payment.settle()
        now = moment()
        let action = machine.budgetPaid(granted, at: time(now, since: start))
        reportLastRecord(of: machine, request: request, start: start)
        return action
    }

    /// Claims a half-open probe's permit from a breaker whose store may
    /// wait: awaits the store (never blocking a thread), then tells the
    /// machine the answer and reports the breaker's change it caused.
    @inlinable
    func claimProbe(
        _ claim: ProbeClaim, machine: inout RequestStateMachine, now: inout Duration?, start: Duration?,
        request: RetryRequest
    ) async -> RequestStateMachine.Action {
        let answer = await claim.settle()
        now = moment()
        let action = machine.probeClaimed(answer, at: time(now, since: start))
        reportBreaker(of: machine, request: request)
        return action
    }

    /// Tells the machine a wait ended at `now`.
    @inlinable @inline(never)
    func waitFinished(
        _ machine: inout RequestStateMachine, at now: Duration?, start: Duration?, request: RetryRequest
    )
        -> RequestStateMachine.Action
    {
        let action = machine.waitFinished(at: time(now, since: start))
        reportBreaker(of: machine, request: request)
        return action
    }

    /// Tells the machine a credential refresh ended at `now`.
    @inlinable @inline(never)
    func credentialRefreshFinished(
        _ machine: inout RequestStateMachine, at now: Duration?, start: Duration?, failure: (any Error)?,
        request: RetryRequest
    ) -> RequestStateMachine.Action {
        let action = machine.credentialRefreshFinished(at: time(now, since: start), failure: failure)
        reportBreaker(of: machine, request: request)
        return action
    }

    /// The failure the machine decided, carrying the last response
    /// returned (when the caller's values can be kept in a failure).
    @inlinable @inline(never)
    func fail(
        _ failure: RetryFailure, lastResponse: (any Sendable)?, request: RetryRequest, start: Duration?,
        machine: RequestStateMachine
    ) -> RetryFailure {
        var failure = failure
        failure.lastResponse = lastResponse
        return finish(failure, request, start, machine: machine)
    }

    /// The failure for a request cancelled before, during or between
    /// attempts, reported like every other.
    @inlinable @inline(never)
    func cancellation(_ machine: inout RequestStateMachine, request: RetryRequest, start: Duration?) -> RetryFailure {
        finish(machine.cancelled(at: time(start.map { _ in moment() }, since: start)), request, start)
    }

    /// The failure for a request cancelled while an attempt was in flight
    /// that then ended at `end` by throwing `thrown`.
    @inlinable @inline(never)
    func cancellation(
        _ machine: inout RequestStateMachine, request: RetryRequest, start: Duration?, at end: Duration?,
        thrown: (any Error)?
    ) -> RetryFailure {
        finish(machine.cancelled(at: time(end, since: start), thrown: thrown), request, start)
    }

    /// Reports the failure and returns it for throwing.
    ///
    /// `machine` says whether a cooldown or the breaker refused the
    /// request, for its trace.
    @inlinable @inline(never)
    func finish(
        _ failure: RetryFailure, _ request: RetryRequest, _ start: Duration?, machine: RequestStateMachine? = nil
    ) -> RetryFailure {
        if !setup.isUnobserved { reportFailure(failure, machine: machine, request: request, start: start) }
        return failure
    }

    /// Sleeps out a wait the machine asked for, from `now`, and tells the
    /// machine it ended; cancellation while waiting ends the request. A
    /// request that is not timed sleeps for the delay, which reads the
    /// clock once (in `sleep(for:)`), and keeps no instant.
    @inlinable @inline(__always)
    func waitOut(
        _ delay: Duration, reason: WaitReason, machine: inout RequestStateMachine, now: inout Duration?,
        start: Duration?, timed: Bool, request: RetryRequest
    ) async throws(RetryFailure) -> RequestStateMachine.Action {
        if !setup.isUnobserved { reportWaiting(delay, reason: reason, request: request, at: now) }
        do {
            if timed {
                try await clock.sleep(until: instant(at: (now ?? moment()) + delay), tolerance: nil)
                read(&now)
            } else {
                try await clock.sleep(for: delay, tolerance: nil)
            }
        } catch {
            throw cancellation(&machine, request: request, start: start)
        }
        return waitFinished(&machine, at: now, start: start, request: request)
    }

    /// Refreshes credentials as the machine asked and tells it how that
    /// went; cancellation during the refresh ends the request.
    @inlinable @inline(__always)
    func refreshCredentials(
        machine: inout RequestStateMachine, now: inout Duration?, start: Duration?, request: RetryRequest
    ) async throws(RetryFailure) -> RequestStateMachine.Action {
        var failure: (any Error)?
        if let refresh = self.refreshCredentials {
            if setup.isObserved { reportRefreshingCredentials() }
            do {
                try await refresh()
            } catch {
                if Task.isCancelled { throw cancellation(&machine, request: request, start: start) }
                failure = error
            }
        }
        if now != nil { now = moment() }
        return credentialRefreshFinished(&machine, at: now, start: start, failure: failure, request: request)
    }

    /// The request succeeded with `value`, the last attempt's. The machine
    /// succeeds only on an attempt that produced a value; were that ever
    /// not so, the request fails with an internal error rather than
    /// returning nothing.
    @inlinable @inline(never)
    func succeed<Value>(
        _ value: Value?, machine: RequestStateMachine, request: RetryRequest, start: Duration?, now: Duration?
    ) throws(RetryFailure) -> Value {
        guard let value else {
            var error = SDKError(kind: .internalError)
            error.detail = "the request succeeded without a value"
            throw finish(RetryFailure(error: error, reason: .notRetryable, attempts: []), request, start)
        }
        if !setup.isUnobserved, let start, let now {
            reportSuccess(attempts: machine.attempt, history: machine.history[...], request: request, start: start, now: now)
        }
        return value
    }
}

extension RequestTime {
    /// What the steps of a request that is not timed are told: its policy
    /// decides the same whatever the time, so no instant is read for it.
    @usableFromInline
    static var untimed: RequestTime { RequestTime(elapsed: .zero, wall: Timestamp(nanosecondsSince1970: 0)) }
}
