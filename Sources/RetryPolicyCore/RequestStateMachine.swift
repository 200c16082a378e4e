/// A moment in the life of a request, as a driver reports it: the time
/// since the request started, on a monotonic clock, and the wall-clock time
/// (needed for HTTP-date `Retry-After` values and shared cooldowns).
public struct RequestTime: Hashable, Sendable {
    /// Time since the request started.
    public var elapsed: Duration
    public var wall: Timestamp

    public init(elapsed: Duration, wall: Timestamp) {
        self.elapsed = elapsed
        self.wall = wall
    }

    /// The moment `offset` after the request started at `origin`.
    public init(_ offset: Duration, since origin: Timestamp) {
        elapsed = offset
        wall = origin + offset
    }
}

/// The life of one request under a policy: every step between attempts,
/// with none of the waiting.
///
/// One machine runs one request. A driver tells it what happened (the
/// request starts, an attempt finished, a wait ended, credentials were
/// refreshed), with the time it happened, and the machine answers what to
/// do next: send an attempt with a time limit, wait for a reason, refresh
/// credentials, or finish with a success or a ``RetryFailure``. It owns
/// admission and cooldowns, the decision, the attempt limit, per-attempt
/// timeouts and the total deadline, budget withdrawals and refunds, the
/// refresh-once rule, the circuit breaker's admission and counting, and the
/// attempt history; it performs no I/O and reads
/// no clock. The executor drives it with a real clock and the simulator
/// with a simulated one, so both follow the same rules by construction.
///
/// ```swift
/// var machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get))
/// var action = machine.start(at: now())
/// while true {
///     switch action {
///     case .startAttempt(let number, let timeLimit):
///         let outcome = send(number, timeLimit)
///         action = machine.attemptFinished(outcome, at: now(), using: &generator)
///     case .wait(let delay, _):
///         sleep(delay)
///         action = machine.waitFinished(at: now())
///     case .refreshCredentials:
///         refresh()
///         action = machine.credentialRefreshFinished(at: now())
///     case .succeed: return
///     case .fail(let failure): throw failure
///     }
/// }
/// ```
public struct RequestStateMachine: Sendable {
    /// What the driver does next.
    public enum Action: Sendable {
        /// Send attempt `number` (1 for the first try); if it has not
        /// finished after `timeLimit`, cancel it and report a `timeout`.
        case startAttempt(number: Int, timeLimit: Duration?)
        /// Wait, then call ``waitFinished(at:)``.
        case wait(Duration, reason: WaitReason)
        /// Refresh credentials, then call
        /// ``credentialRefreshFinished(at:failure:)``.
        case refreshCredentials
        /// The last attempt succeeded; the request is over.
        case succeed
        /// The request is over without success.
        case fail(RetryFailure)
        /// Hedging only (a machine made with `concurrentAttempts: true`,
        /// for a request its policy hedges): send `start`, if any,
        /// alongside the attempts in flight and keep them all running;
        /// then call ``hedgeDelayElapsed(at:)`` after `nextHedgeIn`
        /// unless another event comes first. Each such action replaces the
        /// previous timer; `nil` means no timer. When the request succeeds
        /// or fails, the attempts still in flight are cancelled.
        indirect case hedge(start: HedgedAttempt?, nextHedgeIn: Duration?)
    }

    /// An attempt a hedged request starts.
    public struct HedgedAttempt: Hashable, Sendable {
        /// 1 for the first copy.
        public var number: Int
        /// If it has not finished after this long, cancel it and report a
        /// `timeout` for it.
        public var timeLimit: Duration?
    }

    private enum State: Sendable {
        case idle
        /// Attempt `input.attempt` is in progress.
        case attempting(startedAt: Duration)
        /// Waiting out a retry's delay; then refreshing if asked.
        case backingOff(refresh: Bool)
        /// Waiting out a cooldown before an attempt.
        case coolingDown
        case refreshing
        /// A hedged request: attempts in ``hedge``.
        case hedging
        case finished
    }

    /// An attempt of a hedged request in flight.
    private struct InFlight: Sendable {
        var number: Int
        var startedAt: Duration
        var ticket: CircuitBreakerStateMachine.Ticket?
        /// What starting it took from the budget (refunded if it wins).
        var cost: Int
    }

    /// The state of a hedged request.
    private struct Hedge: Sendable {
        let delay: Duration
        /// Attempts started so far.
        var started = 0
        var inFlight: [InFlight] = []
        /// When (time since the request began) the next copy starts.
        var nextAt: Duration?
        /// A non-fatal outcome's decision already paid for the next copy.
        var prepaid: Int?
        /// Why no further copy starts, with the error a request that ends
        /// for that reason reports.
        var halted: Halt?
    }

    public let decider: RetryDecider
    /// The request, as the machine was made with it.
    public var request: RetryRequest {
        RetryRequest(method: input.method, markedIdempotent: input.markedIdempotent, endpoint: input.endpoint)
    }
    /// The time limits for the request's endpoint.
    public var timeouts: TimeoutBudget { decider.timeouts(for: input.endpoint) }
    /// Every attempt so far, in order (only the last one when the machine
    /// was made with `keepsHistory: false`).
    public private(set) var history: [AttemptRecord] = []
    /// Whether the request ended because a cooldown rejected an attempt.
    public private(set) var rejectedByCooldown = false
    /// Whether the request ended because the circuit breaker rejected an
    /// attempt.
    public private(set) var rejectedByBreaker = false
    /// The change of the policy's circuit breaker the last event caused,
    /// if any (a driver reports it: event, log line, metric).
    public private(set) var breakerTransition: CircuitBreakerTransition?

    // A driver keeps its machine across every wait of a request (the
    // executor in its retry loop's async frame), so the machine stores
    // each fact once: the request lives in `input`, and of the timeout
    // budget only the two limits.
    private var input: DecisionInput
    private let perAttemptLimit: Duration?
    private let totalLimit: Duration?
    private var state = State.idle
    private let keepsHistory: Bool
    /// The breaker's ticket for the attempt in progress.
    private var breakerTicket: CircuitBreakerStateMachine.Ticket?
    /// Set for a request its policy hedges, when the driver runs attempts
    /// concurrently. Kept behind a reference, so that the machine of a
    /// request that is not hedged stays as small as it was (a driver keeps
    /// it in its async frame) and copies no hedging state; copied on write.
    private var hedgeStorage: HedgeStorage?

    private final class HedgeStorage: @unchecked Sendable {
        var value: Hedge
        init(_ value: Hedge) { self.value = value }
    }

    private var hedge: Hedge? {
        get { hedgeStorage?.value }
        set {
            guard let newValue else {
                hedgeStorage = nil
                return
            }
            if hedgeStorage != nil, isKnownUniquelyReferenced(&hedgeStorage!) {
                hedgeStorage!.value = newValue
            } else {
                hedgeStorage = HedgeStorage(newValue)
            }
        }
    }

    /// - Parameters:
    ///   - decider: the policy's shared decider.
    ///   - request: the method, idempotency mark and endpoint.
    ///   - keepsHistory: `false` keeps only the last attempt's
    ///     record (a storm of a million clients needs no histories); failures
    ///     then carry that record alone.
    ///   - concurrentAttempts: the driver can run several attempts at once
    ///     and handles ``Action/hedge(start:nextHedgeIn:)``. Only then does
    ///     a policy's `hedging` apply; otherwise its requests run with
    ///     ordinary retries.
    public init(
        decider: RetryDecider, request: RetryRequest = RetryRequest(), keepsHistory: Bool = true,
        concurrentAttempts: Bool = false
    ) {
        self.decider = decider
        if concurrentAttempts, let hedging = decider.policy.hedging,
            hedging.applies(
                to: request.method, markedIdempotent: request.markedIdempotent,
                idempotency: decider.policy.idempotency)
        {
            hedgeStorage = HedgeStorage(Hedge(delay: hedging.delay))
        }
        let timeouts = decider.timeouts(for: request.endpoint)
        perAttemptLimit = timeouts.perAttempt
        totalLimit = timeouts.total
        self.keepsHistory = keepsHistory
        input = DecisionInput(
            outcome: .status(200), attempt: 1, elapsed: .zero, method: request.method,
            markedIdempotent: request.markedIdempotent, endpoint: request.endpoint)
    }

    /// The number of the attempt in progress, or of the next one.
    public var attempt: Int { input.attempt }
    /// How many times the request refreshed credentials (counted when a
    /// retry asks for it).
    public var credentialRefreshes: Int { input.credentialRefreshes }
    /// Whether the request is over.
    public var isFinished: Bool { if case .finished = state { true } else { false } }
    /// Whether the request is hedged (see ``HedgingPolicy``).
    public var isHedged: Bool { hedgeStorage != nil }
    /// The numbers of the hedged attempts in flight.
    public var attemptsInFlight: [Int] { hedge?.inFlight.map(\.number) ?? [] }

    // MARK: Events

    /// The request starts: admission, then the first attempt.
    public mutating func start(at time: RequestTime) -> Action {
        guard case .idle = state else { preconditionFailure("start(at:) begins a request once") }
        return admit(at: time)
    }

    /// The request starts with a first attempt the driver already admitted
    /// itself (with ``RetryDecider/admit(now:)``) at `time`. A policy's
    /// circuit breaker still decides: drivers send a first attempt on their
    /// own only for policies without one.
    public mutating func startAdmitted(at time: RequestTime) -> Action {
        guard case .idle = state else { preconditionFailure("startAdmitted(at:) begins a request once") }
        if let breaker = decider.breaker { return admitThrough(breaker, at: time) }
        return beginAttempt(at: time)
    }

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
    ///   - generator: the source of jitter.
    public mutating func attemptFinished<G: RandomNumberGenerator>(
        _ outcome: AttemptOutcome,
        at time: RequestTime,
        producedValue: Bool = true,
        thrown: (any Error)? = nil,
        using generator: inout G
    ) -> Action {
        if case .hedging = state, let inFlight = hedge?.inFlight, inFlight.count == 1, let only = inFlight.first?.number {
            return attemptFinished(
                only, outcome, at: time, producedValue: producedValue, thrown: thrown, using: &generator)
        }
        guard case .attempting(let startedAt) = state else {
            preconditionFailure("attemptFinished follows startAttempt")
        }
        input.outcome = outcome
        input.elapsed = time.elapsed
        input.now = time.wall
        var decision = decider.decide(input, using: &generator)
        recordInBreaker(outcome, ticket: breakerTicket, at: time)
        breakerTicket = nil
        if !producedValue { Self.refuseSuccessWithoutValue(&decision, outcome) }
        // What the next step needs, read before the decision moves into
        // the history (a retry's action is a duration, copied for free).
        let action = decision.action
        let budgetCost = decision.budgetCost
        let refresh = decision.refreshCredentials
        let serverDirected = decision.serverDirected
        let failed: Bool
        if case .success = action { failed = false } else { failed = true }
        append(
            AttemptRecord(
                number: input.attempt, outcome: outcome, startedAt: startedAt, duration: time.elapsed - startedAt,
                decision: decision,
                errorDescription: failed ? (thrown.map { String(describing: $0) } ?? (producedValue ? nil : "timed out")) : nil))

        switch action {
        case .success:
            state = .finished
            return .succeed
        case .stop(var error, let reason):
            if error.detail == nil, let thrown { error.detail = String(describing: thrown) }
            state = .finished
            return .fail(RetryFailure(error: error, reason: reason, attempts: history, underlyingError: thrown))
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

    /// Hedged attempt `number` finished at `time` with `outcome` (the
    /// other parameters as in ``attemptFinished(_:at:producedValue:thrown:using:)``).
    public mutating func attemptFinished<G: RandomNumberGenerator>(
        _ number: Int,
        _ outcome: AttemptOutcome,
        at time: RequestTime,
        producedValue: Bool = true,
        thrown: (any Error)? = nil,
        using generator: inout G
    ) -> Action {
        guard case .hedging = state, var hedge, let index = hedge.inFlight.firstIndex(where: { $0.number == number })
        else {
            if case .attempting = state, number == input.attempt {
                return attemptFinished(
                    outcome, at: time, producedValue: producedValue, thrown: thrown, using: &generator)
            }
            preconditionFailure("attemptFinished(\(number), ...) follows the start of attempt \(number)")
        }
        let finished = hedge.inFlight.remove(at: index)
        recordInBreaker(outcome, ticket: finished.ticket, at: time)
        input.outcome = outcome
        input.elapsed = time.elapsed
        input.now = time.wall
        input.lastRetryCost = finished.cost
        // Deciding as if attempt `started` failed asks whether one more copy
        // may be paid for; with every copy started (or none to come), as
        // the last attempt, which pays for nothing.
        let mayStartMore = hedge.started < decider.policy.attempts && hedge.halted == nil && hedge.prepaid == nil
        input.attempt = mayStartMore ? hedge.started : decider.policy.attempts
        var decision = decider.decide(input, using: &generator, backoff: false)
        input.attempt = hedge.started
        if !producedValue { Self.refuseSuccessWithoutValue(&decision, outcome) }
        if decision.refreshCredentials, case .retry = decision.action {
            // Copies in flight carry the old credentials: a hedged request
            // does not refresh them, it stops.
            decider.refundUnstartedHedge(decision.budgetCost)
            var error = SDKError(kind: decision.errorKind ?? .internalError)
            if case .response(let status, _) = outcome { error.statusCode = status }
            error.detail = "a hedged request does not refresh credentials"
            decision = Decision(
                action: .stop(error, .notRetryable), ruleIndex: decision.ruleIndex, ruleLocation: decision.ruleLocation)
        }
        let action = decision.action
        let record = AttemptRecord(
            number: number, outcome: outcome, startedAt: finished.startedAt, duration: time.elapsed - finished.startedAt,
            decision: decision,
            errorDescription: {
                if case .success = action { return nil }
                return thrown.map { String(describing: $0) } ?? (producedValue ? nil : "timed out")
            }())

        switch action {
        case .success:
            self.hedge = hedge
            cancelInFlight(at: time)
            append(record)
            state = .finished
            return .succeed
        case .stop(var error, let reason):
            if error.detail == nil, let thrown { error.detail = String(describing: thrown) }
            switch reason {
            case .notRetryable, .cancelled, .retryAfterTooLong:
                // Fatal: it ends the request, whatever is in flight.
                self.hedge = hedge
                cancelInFlight(at: time)
                append(record)
                state = .finished
                return .fail(RetryFailure(error: error, reason: reason, attempts: history, underlyingError: thrown))
            default:
                // Non-fatal. When this decision was asked to pay for another
                // copy and could not (budget, deadline), no further copy
                // starts; otherwise its `attempts_exhausted` only says that
                // it paid for none.
                append(record)
                if mayStartMore { hedge.halted = Halt(error: error, reason: reason, keepsError: false) }
                self.hedge = hedge
                if hedge.inFlight.isEmpty && nextHedgeIn(at: time) == nil {
                    return finishHedged(error: error, reason: reason, thrown: thrown)
                }
                return awaitingHedges(at: time)
            }
        case .retry(let delay):
            // Non-fatal, and the budget paid for the next copy: it starts at
            // once, or after the server's delay.
            append(record)
            hedge.prepaid = decision.budgetCost
            hedge.nextAt = time.elapsed + delay
            self.hedge = hedge
            return awaitingHedges(at: time)
        }
    }

    /// Why a hedged request starts no further copy.
    private struct Halt: Sendable {
        var error: SDKError
        var reason: StopReason
        /// The request reports this error rather than its last attempt's
        /// (a circuit breaker or cooldown rejection).
        var keepsError: Bool
    }

    /// How long until the next copy of a hedged request starts, if one is
    /// still to start.
    private func nextHedgeIn(at time: RequestTime) -> Duration? {
        guard let hedge, hedge.halted == nil, hedge.started < decider.policy.attempts, let nextAt = hedge.nextAt
        else { return nil }
        return max(.zero, nextAt - time.elapsed)
    }

    /// Nothing to start now: keep the attempts in flight and the pending
    /// timer (or start the next copy if it is due).
    private mutating func awaitingHedges(at time: RequestTime) -> Action {
        let next = nextHedgeIn(at: time)
        if next == .zero { return hedgeDelayElapsed(at: time) }
        return .hedge(start: nil, nextHedgeIn: next)
    }

    /// The last copy of a hedged request failed: the request fails with it,
    /// or with the reason no further copy started.
    private mutating func finishHedged(error: SDKError, reason: StopReason, thrown: (any Error)?) -> Action {
        state = .finished
        var error = error
        var reason = reason
        if let halted = hedge?.halted {
            reason = halted.reason
            if halted.keepsError {
                error = halted.error
                if reason == .circuitOpen { rejectedByBreaker = true } else { rejectedByCooldown = true }
            }
        }
        return .fail(RetryFailure(error: error, reason: reason, attempts: history, underlyingError: thrown))
    }

    /// The hedging delay the last ``Action/hedge(start:nextHedgeIn:)``
    /// asked for has passed at `time`: start the next copy, if the budget,
    /// the cooldown, the circuit breaker and the deadline allow one.
    public mutating func hedgeDelayElapsed(at time: RequestTime) -> Action {
        guard case .hedging = state, var hedge else { preconditionFailure("hedgeDelayElapsed follows hedge") }
        breakerTransition = nil
        guard hedge.halted == nil, hedge.started < decider.policy.attempts, let nextAt = hedge.nextAt else {
            return .hedge(start: nil, nextHedgeIn: nil)
        }
        if time.elapsed < nextAt { return .hedge(start: nil, nextHedgeIn: nextAt - time.elapsed) }
        func halt(
            _ machine: inout RequestStateMachine, _ hedge: inout Hedge, _ error: SDKError, _ reason: StopReason,
            keepsError: Bool = false
        ) -> Action {
            if let prepaid = hedge.prepaid { machine.decider.refundUnstartedHedge(prepaid) }
            hedge.prepaid = nil
            hedge.nextAt = nil
            hedge.halted = Halt(error: error, reason: reason, keepsError: keepsError)
            machine.hedge = hedge
            guard hedge.inFlight.isEmpty else { return .hedge(start: nil, nextHedgeIn: nil) }
            return machine.finishHedged(error: error, reason: reason, thrown: nil)
        }
        var lastError: SDKError { history.last.map(errorOf) ?? SDKError(kind: .timeout, transport: .timeout) }
        switch decider.admit(now: time.wall) {
        case .proceed: break
        case .wait(let remaining):
            if let total = totalLimit, time.elapsed + remaining >= total {
                var error = decider.cooldown.active(at: time.wall)?.error ?? lastError
                error.retryAfter = remaining
                return halt(&self, &hedge, error, .deadlineExceeded)
            }
            hedge.nextAt = time.elapsed + remaining
            self.hedge = hedge
            return .hedge(start: nil, nextHedgeIn: remaining)
        case .reject(let error):
            return halt(&self, &hedge, error, .notRetryable, keepsError: true)
        }
        var limit = perAttemptLimit
        if let total = totalLimit {
            let remaining = total - time.elapsed
            if remaining <= .zero {
                var error = lastError
                error.detail = error.detail ?? "total deadline of \(total.formattedForHumans) reached"
                return halt(&self, &hedge, error, .deadlineExceeded)
            }
            limit = limit.map { min($0, remaining) } ?? remaining
        }
        let cost: Int
        if let prepaid = hedge.prepaid {
            cost = prepaid
        } else if hedge.started == 0 {
            cost = 0
        } else if let paid = decider.payForHedge() {
            cost = paid
        } else {
            var error = lastError
            error.detail = "the retry budget pays for no further hedge"
            return halt(&self, &hedge, error, .budgetExhausted)
        }
        hedge.prepaid = nil
        var ticket: CircuitBreakerStateMachine.Ticket?
        if let breaker = decider.breaker {
            let (admission, transition) = breaker.admit(at: time.wall)
            if let transition { breakerTransition = transition }
            switch admission {
            case .proceed(let granted): ticket = granted
            case .reject(let retryAfter):
                decider.refundUnstartedHedge(cost)
                var error = SDKError(kind: breaker.configuration.error, retryAfter: retryAfter)
                error.detail = retryAfter == nil ? "circuit half-open, every probe in flight" : "circuit open"
                return halt(&self, &hedge, error, .circuitOpen, keepsError: true)
            }
        }
        hedge.started += 1
        input.attempt = hedge.started
        hedge.inFlight.append(InFlight(number: hedge.started, startedAt: time.elapsed, ticket: ticket, cost: cost))
        let more = hedge.started < decider.policy.attempts
        hedge.nextAt = more ? time.elapsed + hedge.delay : nil
        self.hedge = hedge
        return .hedge(start: HedgedAttempt(number: hedge.started, timeLimit: limit), nextHedgeIn: more ? hedge.delay : nil)
    }

    /// The copies still in flight when a hedged request ends are cancelled:
    /// each gets a record (before the deciding one, which stays last) and
    /// gives its breaker ticket back.
    private mutating func cancelInFlight(at time: RequestTime) {
        guard var hedge, !hedge.inFlight.isEmpty else { return }
        for loser in hedge.inFlight {
            if let ticket = loser.ticket, let breaker = decider.breaker { breaker.release(ticket) }
            let error = SDKError(kind: .cancelled, transport: .cancelled)
            append(
                AttemptRecord(
                    number: loser.number, outcome: .transport(.cancelled), startedAt: loser.startedAt,
                    duration: time.elapsed - loser.startedAt,
                    decision: Decision(action: .stop(error, .cancelled)),
                    errorDescription: "cancelled: another attempt settled the request"))
        }
        hedge.inFlight.removeAll()
        if let prepaid = hedge.prepaid { decider.refundUnstartedHedge(prepaid) }
        hedge.prepaid = nil
        self.hedge = hedge
    }

    /// The wait the machine asked for ended at `time`.
    public mutating func waitFinished(at time: RequestTime) -> Action {
        breakerTransition = nil
        switch state {
        case .backingOff(let refresh): return afterBackoff(refresh: refresh, at: time)
        case .coolingDown: return admit(at: time)
        default: preconditionFailure("waitFinished follows wait")
        }
    }

    /// The credential refresh the machine asked for ended at `time`;
    /// `failure` is what it threw, if it failed.
    public mutating func credentialRefreshFinished(at time: RequestTime, failure: (any Error)? = nil) -> Action {
        guard case .refreshing = state else { preconditionFailure("credentialRefreshFinished follows refreshCredentials") }
        breakerTransition = nil
        guard let failure else { return admit(at: time) }
        state = .finished
        guard let last = history.last else { preconditionFailure("a refresh follows a recorded attempt") }
        var error = errorOf(last)
        error.detail = "credential refresh failed: \(failure)"
        return .fail(RetryFailure(error: error, reason: .notRetryable, attempts: history, underlyingError: failure))
    }

    /// The caller cancelled the request at `time` (before, during or
    /// between attempts). The failure is the policy's error for a
    /// `cancelled` transport failure if a rule names one, otherwise the
    /// standard `cancelled` kind: never what the default rule says, since
    /// cancelling is the caller's choice, not a fault.
    public mutating func cancelled(at time: RequestTime) -> RetryFailure {
        state = .finished
        releaseBreakerTicket()
        if var hedge {
            for attempt in hedge.inFlight {
                if let ticket = attempt.ticket, let breaker = decider.breaker { breaker.release(ticket) }
            }
            hedge.inFlight.removeAll()
            if let prepaid = hedge.prepaid { decider.refundUnstartedHedge(prepaid) }
            hedge.prepaid = nil
            self.hedge = hedge
        }
        var error = SDKError(kind: .cancelled, transport: .cancelled)
        if decider.matchingRule(for: .transport(.cancelled), method: input.method) != nil {
            var cancelled = input
            cancelled.outcome = .transport(.cancelled)
            cancelled.elapsed = time.elapsed
            cancelled.now = time.wall
            // A cancelled outcome stops before anything random is drawn.
            var generator = SplitMix64(seed: 0)
            if let decided = decider.decide(cancelled, using: &generator).error { error = decided }
        }
        return RetryFailure(error: error, reason: .cancelled, attempts: history)
    }

    // MARK: Steps

    private mutating func afterBackoff(refresh: Bool, at time: RequestTime) -> Action {
        if refresh {
            state = .refreshing
            return .refreshCredentials
        }
        return admit(at: time)
    }

    /// Before every attempt: a cooldown may hold it back, reject it, or
    /// outlast the deadline.
    private mutating func admit(at time: RequestTime) -> Action {
        switch decider.admit(now: time.wall) {
        case .proceed:
            if let breaker = decider.breaker { return admitThrough(breaker, at: time) }
            return beginAttempt(at: time)
        case .reject(let error):
            state = .finished
            rejectedByCooldown = true
            return .fail(RetryFailure(error: error, reason: .notRetryable, attempts: history))
        case .wait(let remaining):
            if let total = totalLimit, time.elapsed + remaining >= total {
                var error = decider.cooldown.active(at: time.wall)?.error ?? SDKError(kind: .timeout)
                error.retryAfter = remaining
                state = .finished
                return .fail(RetryFailure(error: error, reason: .deadlineExceeded, attempts: history))
            }
            state = .coolingDown
            return .wait(remaining, reason: .cooldown)
        }
    }

    /// The circuit breaker lets the attempt through, or ends the request.
    private mutating func admitThrough(_ breaker: CircuitBreaker, at time: RequestTime) -> Action {
        let (admission, transition) = breaker.admit(at: time.wall)
        // An attempt's result may have changed the breaker just before
        // this admission, within the same event: keep that change.
        if let transition { breakerTransition = transition }
        switch admission {
        case .proceed(let ticket):
            breakerTicket = ticket
            return beginAttempt(at: time)
        case .reject(let retryAfter):
            state = .finished
            rejectedByBreaker = true
            var error = SDKError(kind: breaker.configuration.error, retryAfter: retryAfter)
            error.detail = retryAfter == nil ? "circuit half-open, every probe in flight" : "circuit open"
            return .fail(RetryFailure(error: error, reason: .circuitOpen, attempts: history))
        }
    }

    /// The next attempt may run for the per-attempt timeout, cut to what is
    /// left of the total deadline; once nothing is left the request fails.
    private mutating func beginAttempt(at time: RequestTime) -> Action {
        var limit = perAttemptLimit
        if let total = totalLimit {
            let remaining = total - time.elapsed
            if remaining <= .zero {
                var error = history.last.map(errorOf) ?? SDKError(kind: .timeout, transport: .timeout)
                error.detail = error.detail ?? "total deadline of \(total.formattedForHumans) reached"
                state = .finished
                releaseBreakerTicket()
                return .fail(RetryFailure(error: error, reason: .deadlineExceeded, attempts: history))
            }
            limit = limit.map { min($0, remaining) } ?? remaining
        }
        if var hedge {
            // The first copy of a hedged request, already admitted.
            state = .hedging
            hedge.started = 1
            hedge.inFlight = [InFlight(number: 1, startedAt: time.elapsed, ticket: breakerTicket, cost: 0)]
            breakerTicket = nil
            let more = decider.policy.attempts > 1
            hedge.nextAt = more ? time.elapsed + hedge.delay : nil
            self.hedge = hedge
            return .hedge(start: HedgedAttempt(number: 1, timeLimit: limit), nextHedgeIn: more ? hedge.delay : nil)
        }
        state = .attempting(startedAt: time.elapsed)
        return .startAttempt(number: input.attempt, timeLimit: limit)
    }

    /// Counts a finished attempt's outcome in the circuit breaker that
    /// admitted it (with `ticket`), keeping the change it causes.
    private mutating func recordInBreaker(
        _ outcome: AttemptOutcome, ticket: CircuitBreakerStateMachine.Ticket?, at time: RequestTime
    ) {
        breakerTransition = nil
        guard let ticket, let breaker = decider.breaker else { return }
        breakerTransition = breaker.record(
            failure: decider.compiledPolicy.breakerCountsFailure(
                outcome, method: input.method, failures: breaker.configuration.failures),
            ticket: ticket, at: time.wall)
    }

    /// A rule that calls an attempt without a value (a thrown error, a
    /// timeout) a success is a policy mistake: the request stops.
    private static func refuseSuccessWithoutValue(_ decision: inout Decision, _ outcome: AttemptOutcome) {
        guard case .success = decision.action else { return }
        var error = SDKError(kind: .internalError)
        if case .transport(let transport) = outcome { error.transport = transport }
        error.detail = "the policy treats \(outcome) as a success, but the operation produced no value"
        decision.action = .stop(error, .notRetryable)
        decision.errorKind = .internalError
    }

    /// An admitted attempt that will never report a result gives its
    /// place back (a half-open breaker would otherwise wait for it).
    private mutating func releaseBreakerTicket() {
        guard let ticket = breakerTicket, let breaker = decider.breaker else { return }
        breakerTicket = nil
        breaker.release(ticket)
    }

    private mutating func append(_ record: consuming AttemptRecord) {
        if !keepsHistory {
            history.removeAll(keepingCapacity: true)
        } else if history.isEmpty {
            // One allocation for the whole history: a request that failed
            // once is likely to fail again.
            history.reserveCapacity(max(decider.policy.attempts, 1))
        }
        history.append(record)
    }

    /// The error an attempt's decision reports, or would have reported had
    /// it stopped.
    private func errorOf(_ record: AttemptRecord) -> SDKError {
        if let error = record.decision.error { return error }
        var error = SDKError(kind: record.decision.errorKind ?? .internalError)
        switch record.outcome {
        case .response(let status, _): error.statusCode = status
        case .transport(let transport): error.transport = transport
        }
        return error
    }
}
