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
///     case .payBudget(let payment):
///         action = machine.budgetPaid(payment.settleWithoutWaiting(), at: now())
///     case .claimProbe(let claim):
///         action = machine.probeClaimed(claim.settleWithoutWaiting(), at: now())
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
        /// Only under a budget whose store may wait (a database): await
        /// ``BudgetPayment/settle()``, then call ``budgetPaid(_:at:)``
        /// with its answer. A driver that cannot wait may call
        /// ``BudgetPayment/settleWithoutWaiting()`` instead.
        case payBudget(BudgetPayment)
        /// Only under a circuit breaker whose store may wait (a database)
        /// and has to claim a half-open probe's permit: await
        /// ``ProbeClaim/settle()``, then call ``probeClaimed(_:at:)`` with
        /// its answer. A driver that cannot wait may call
        /// ``ProbeClaim/settleWithoutWaiting()`` instead.
        case claimProbe(ProbeClaim)
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

        @usableFromInline package init(number: Int, timeLimit: Duration?) {
            self.number = number
            self.timeLimit = timeLimit
        }
    }

    /// Where the request is. Each case carries what only that step needs.
    enum State: Sendable {
        case idle
        /// Attempt `input.attempt` is in progress; the breaker admitted it
        /// with `ticket`.
        case attempting(startedAt: Duration, ticket: CircuitBreakerStateMachine.Ticket?)
        /// Waiting out a retry's delay; then refreshing if asked.
        case backingOff(refresh: Bool)
        /// Waiting out a cooldown before an attempt.
        case coolingDown
        /// Waiting for the token the adaptive rate limiter reserved for
        /// the next attempt.
        case rateLimited
        case refreshing
        /// A retry's decision waits for its payment.
        case paying(PendingRetry)
        /// The next attempt, a half-open breaker's probe, waits for its
        /// permit.
        case claiming
        /// A hedged request with its copies. Behind a reference, so that
        /// the machine of a request that is not hedged stays as small as it
        /// is (a driver keeps it in its async frame); copied on write.
        case hedging(HedgeBox)
        case finished
    }

    /// Its ledger changes only when a driver resumes a parked request of
    /// another client in this machine (`resume(_:lastOutcome:ledger:)`).
    public internal(set) var decider: RetryDecider
    /// The request, as the machine was made with it.
    public var request: RetryRequest {
        RetryRequest(
            method: input.method,
            retryability: input.markedUnsafe ? .unsafe : input.markedIdempotent ? .idempotent : .asPolicySays,
            endpoint: input.endpoint)
    }
    /// The time limits for the request's endpoint.
    public var timeouts: TimeoutBudget { decider.timeouts(for: input.endpoint) }
    /// Every attempt so far, in order (only the last one when the machine
    /// was made with `keepsHistory: false`, none for a sequential request
    /// of a machine that records no attempts).
    public internal(set) var history: [AttemptRecord] = []
    /// What refused an attempt, when the request ended because admission
    /// refused one.
    package internal(set) var rejection: Admission.Rejection?
    /// Whether the request ended because a cooldown rejected an attempt.
    package var rejectedByCooldown: Bool { rejection == .cooldown }
    /// Whether the request ended because the circuit breaker rejected an
    /// attempt.
    package var rejectedByBreaker: Bool { rejection == .breaker }
    /// The change of the policy's circuit breaker the last event caused,
    /// if any (a driver reports it: event, log line, metric).
    package internal(set) var breakerTransition: CircuitBreakerTransition?

    // A driver keeps its machine across every wait of a request (the
    // executor in its retry loop's async frame), so the machine stores
    // each fact once: the request lives in `input`, and of the timeout
    // budget only the two limits.
    var input: DecisionInput
    let perAttemptLimit: Duration?
    let totalLimit: Duration?
    /// Whether the request is hedged (its delay is the policy's).
    let hedges: Bool
    var state = State.idle
    /// Which attempt records the machine keeps.
    enum Recording: UInt8 {
        case all
        case last
        /// None: the last attempt's error is kept as its kind, with its
        /// outcome in `input` (a sequential request only).
        case none
    }
    let recording: Recording
    /// With no record of the last attempt (a machine that records none,
    /// or one resumed from its parked form), the error kind of that
    /// attempt's decision; `input.outcome` is its outcome.
    var lastErrorKind: SDKError.Kind?

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
        hedges = Self.hedges(request, under: decider, concurrentAttempts: concurrentAttempts)
        (perAttemptLimit, totalLimit) = Self.limits(of: request, under: decider)
        recording = keepsHistory ? .all : .last
        input = Self.input(of: request)
    }

    /// A machine that keeps no record of a sequential request's attempts
    /// (a hedged one keeps the last): what a simulation of a million
    /// requests needs, where a failure's records are never read.
    package init(decider: RetryDecider, request: RetryRequest, recordingNoAttempts: Void, concurrentAttempts: Bool) {
        self.decider = decider
        hedges = Self.hedges(request, under: decider, concurrentAttempts: concurrentAttempts)
        (perAttemptLimit, totalLimit) = Self.limits(of: request, under: decider)
        recording = hedges ? .last : .none
        input = Self.input(of: request)
    }

    // Each initializer sets every stored property itself: one that
    // delegated and then changed a field would build the machine twice.

    /// Whether `request` is hedged: only with a driver that runs attempts
    /// concurrently, for a request the policy's hedging applies to.
    static func hedges(_ request: RetryRequest, under decider: RetryDecider, concurrentAttempts: Bool) -> Bool {
        let compiled = decider.compiled
        guard concurrentAttempts, request.retryability != .unsafe, let hedging = compiled.policy.hedging else {
            return false
        }
        return hedging.applies(
            to: request.method, markedIdempotent: request.markedIdempotent, idempotency: compiled.policy.idempotency)
    }

    /// The per-attempt and total limits of `request`'s endpoint.
    static func limits(of request: RetryRequest, under decider: RetryDecider) -> (perAttempt: Duration?, total: Duration?) {
        let compiled = decider.compiled
        guard compiled.hasEndpointOverrides else { return (compiled.defaultPerAttempt, compiled.defaultTotal) }
        let timeouts = compiled.policy.timeouts(for: request.endpoint)
        return (timeouts.perAttempt, timeouts.total)
    }

    /// The decision input of `request`'s first attempt.
    static func input(of request: RetryRequest) -> DecisionInput {
        var input = DecisionInput(
            outcome: .status(200), attempt: 1, elapsed: .zero, method: request.method,
            markedIdempotent: request.markedIdempotent, endpoint: request.endpoint)
        input.markedUnsafe = request.retryability == .unsafe
        return input
    }

    /// The number of the attempt in progress, or of the next one.
    public var attempt: Int { input.attempt }
    /// How many times the request refreshed credentials (counted when a
    /// retry asks for it).
    @usableFromInline package var credentialRefreshes: Int { input.credentialRefreshes }
    /// Whether the request is over.
    public var isFinished: Bool { if case .finished = state { true } else { false } }
    /// Whether the request is hedged (see ``HedgingPolicy``).
    package var isHedged: Bool { hedges }
    /// The numbers of the hedged attempts in flight.
    package var attemptsInFlight: [Int] {
        if case .hedging(let box) = state { return box.value.inFlight.map(\.number) }
        return []
    }

    // MARK: Events

    /// The request starts: admission, then the first attempt.
    public mutating func start(at time: RequestTime) -> Action {
        guard case .idle = state else { preconditionFailure("start(at:) begins a request once") }
        decider.recordRequestStart(at: time.wall)
        return admit(at: time)
    }

    /// The request starts with a first attempt the driver already admitted
    /// itself (with ``RetryDecider/admit(now:)``) at `time`. A policy's
    /// circuit breaker still decides: drivers send a first attempt on their
    /// own only for policies without one. A driver that does records the
    /// request's start itself (`RetryDecider.recordRequestStart(at:)`)
    /// when the policy's budget counts requests.
    @usableFromInline package mutating func startAdmitted(at time: RequestTime) -> Action {
        guard case .idle = state else { preconditionFailure("startAdmitted(at:) begins a request once") }
        return admit(at: time, checkingCooldown: false)
    }

    /// The wait the machine asked for ended at `time`.
    public mutating func waitFinished(at time: RequestTime) -> Action {
        breakerTransition = nil
        switch state {
        case .backingOff(let refresh): return afterBackoff(refresh: refresh, at: time)
        case .coolingDown: return admit(at: time)
        case .rateLimited: return admit(at: time, rateLimiterPaid: true)
        case .idle, .attempting, .refreshing, .paying, .claiming, .hedging, .finished:
            preconditionFailure("waitFinished follows wait")
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
        cancelled(at: time, thrown: nil)
    }

    /// The caller cancelled the request while an attempt was in flight,
    /// and that attempt ended by throwing `thrown` (usually the client's
    /// own cancellation error). The attempt is recorded, as a cancelled
    /// one, and the failure carries what it threw.
    public mutating func cancelled(at time: RequestTime, thrown: (any Error)?) -> RetryFailure {
        var inFlight: Duration?
        switch state {
        case .attempting(let startedAt, let ticket):
            inFlight = startedAt
            // An admitted attempt that will never report a result gives its
            // place back (a half-open breaker would otherwise wait for it).
            if let ticket { decider.breaker?.release(ticket) }
        case .hedging(let box):
            releaseHedge(box.value)
        case .idle, .backingOff, .coolingDown, .rateLimited, .refreshing, .paying, .claiming, .finished:
            break
        }
        state = .finished
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
        if let thrown {
            if error.detail == nil { error.detail = String(describing: thrown) }
            if let inFlight {
                append(
                    Self.record(
                        number: input.attempt, .transport(.cancelled), startedAt: inFlight, at: time,
                        decision: Decision(action: .stop(error, .cancelled)), producedValue: false, thrown: thrown))
            }
        }
        return RetryFailure(error: error, reason: .cancelled, attempts: history, underlyingError: thrown)
    }

    // MARK: Steps shared by sequential and hedged requests

    /// After a retry's delay: refresh credentials if the retry asked for
    /// it, then admit the next attempt.
    mutating func afterBackoff(refresh: Bool, at time: RequestTime) -> Action {
        if refresh {
            state = .refreshing
            return .refreshCredentials
        }
        return admit(at: time)
    }

    /// Adds an attempt's record to the history.
    mutating func append(_ record: consuming AttemptRecord) {
        if recording != .all {
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
    func errorOf(_ record: AttemptRecord) -> SDKError {
        record.decision.error ?? decider.error(for: record.outcome, kind: record.decision.errorKind)
    }

    /// The error of the last attempt, or a timeout when none ran: what a
    /// request that stops before an attempt reports.
    var lastError: SDKError {
        if let last = history.last { return errorOf(last) }
        if let kind = lastErrorKind { return decider.error(for: input.outcome, kind: kind) }
        return SDKError(kind: .timeout, transport: .timeout)
    }
}
