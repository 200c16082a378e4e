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
        case finished
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

    /// - Parameters:
    ///   - decider: the policy's shared decider.
    ///   - request: the method, idempotency mark and endpoint.
    ///   - keepsHistory: `false` keeps only the last attempt's
    ///     record (a storm of a million clients needs no histories); failures
    ///     then carry that record alone.
    public init(decider: RetryDecider, request: RetryRequest = RetryRequest(), keepsHistory: Bool = true) {
        self.decider = decider
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
        guard case .attempting(let startedAt) = state else {
            preconditionFailure("attemptFinished follows startAttempt")
        }
        input.outcome = outcome
        input.elapsed = time.elapsed
        input.now = time.wall
        var decision = decider.decide(input, using: &generator)
        breakerTransition = nil
        if let ticket = breakerTicket, let breaker = decider.breaker {
            breakerTicket = nil
            breakerTransition = breaker.record(
                failure: decider.compiledPolicy.breakerCountsFailure(
                    outcome, method: input.method, failures: breaker.configuration.failures),
                ticket: ticket, at: time.wall)
        }
        if case .success = decision.action, !producedValue {
            var error = SDKError(kind: .internalError)
            if case .transport(let transport) = outcome { error.transport = transport }
            error.detail = "the policy treats \(outcome) as a success, but the operation produced no value"
            decision.action = .stop(error, .notRetryable)
            decision.errorKind = .internalError
        }
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
        state = .attempting(startedAt: time.elapsed)
        return .startAttempt(number: input.attempt, timeLimit: limit)
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
