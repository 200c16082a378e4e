/// Parking: a request between two events, kept in a few dozen bytes.
///
/// A machine holds its decider, its request and its last attempt's record,
/// which is right for a driver that runs one request (the executor keeps
/// it in its async frame) and too much for a simulation that holds a
/// million requests between events, all under one policy's rules and most
/// with the same request. ``Parked`` keeps only what is this request's own
/// and needed to go on; the driver keeps the decider (or, for separate
/// clients, each one's ledger), the request and the last attempt's
/// outcome, and resumes the machine when its next event comes.
extension RequestStateMachine {
    /// A sequential request between two events, without its decider, its
    /// request or its records: made by ``park()``, taken back by a
    /// machine's ``resume(_:lastOutcome:)``.
    package struct Parked: Sendable {
        fileprivate enum Phase: UInt8 {
            case attempting
            case attemptingWithTicket
            case backingOff
            case backingOffThenRefreshing
            case coolingDown
            case rateLimited
        }

        fileprivate var phase: Phase
        fileprivate var hasPreviousDelay: Bool
        fileprivate var hasLastAttempt: Bool
        fileprivate var attempt: Int32
        fileprivate var credentialRefreshes: Int32
        fileprivate var lastRetryCost: Int
        fileprivate var ticketGeneration: UInt64
        fileprivate var previousDelay: Duration
        /// Attempting: when the attempt in flight started (time since the
        /// request began).
        fileprivate var attemptStartedAt: Duration
        /// The error kind of the last attempt's decision: with that
        /// attempt's outcome, the error a request that stops before its
        /// next attempt reports.
        fileprivate var lastErrorKind: SDKError.Kind

        /// Whether the request waits for an attempt in flight (otherwise
        /// for a backoff or a cooldown to end).
        package var isAttempting: Bool { phase == .attempting || phase == .attemptingWithTicket }
    }

    /// Whether ``park()`` can keep the machine: a sequential request that
    /// waits for an attempt in flight, a backoff, a cooldown or the rate
    /// limiter, and keeps no
    /// history.
    package var isParkable: Bool {
        guard !hedges, recording != .all, rejection == nil else { return false }
        switch state {
        case .attempting, .backingOff, .coolingDown, .rateLimited: return true
        case .idle, .refreshing, .paying, .claiming, .hedging, .finished: return false
        }
    }

    /// The machine in its parked form (see ``isParkable``).
    package func park() -> Parked {
        precondition(isParkable, "park() keeps a sequential request between events")
        let phase: Parked.Phase
        var startedAt = Duration.zero
        var generation: UInt64 = 0
        switch state {
        case .attempting(let started, let ticket):
            phase = ticket == nil ? .attempting : .attemptingWithTicket
            startedAt = started
            generation = ticket?.generation ?? 0
        case .backingOff(let refresh): phase = refresh ? .backingOffThenRefreshing : .backingOff
        case .coolingDown: phase = .coolingDown
        case .rateLimited: phase = .rateLimited
        case .idle, .refreshing, .paying, .claiming, .hedging, .finished: preconditionFailure("not parkable")
        }
        // The last record's decision was a retry (a stop ends the
        // request), so its error is the one its kind and outcome make.
        let lastKind: SDKError.Kind?
        if let last = history.last {
            lastKind = last.decision.errorKind ?? .internalError
        } else {
            lastKind = lastErrorKind
        }
        return Parked(
            phase: phase, hasPreviousDelay: input.previousDelay != nil, hasLastAttempt: lastKind != nil,
            attempt: Int32(input.attempt), credentialRefreshes: Int32(input.credentialRefreshes),
            lastRetryCost: input.lastRetryCost, ticketGeneration: generation, previousDelay: input.previousDelay ?? .zero,
            attemptStartedAt: startedAt, lastErrorKind: lastKind ?? .internalError)
    }

    /// Resumes the request parked by ``park()`` in this machine: one made
    /// with `recordingNoAttempts` for the request and under the compiled
    /// rules the parked one was made with, fresh or after running another such
    /// request (everything a request changes as it runs is set anew; what
    /// the machine was made with stays). A driver that resumes many
    /// requests reuses one machine rather than making one each time.
    ///
    /// The machine has no records of the attempts before it was parked: a
    /// request that then stops before its next attempt (at a deadline, say)
    /// reports the error of its last attempt, and its failure carries no
    /// record.
    ///
    /// - Parameters:
    ///   - parked: the parked machine.
    ///   - lastOutcome: the outcome of the last attempt that finished, when
    ///     the machine was parked while waiting for a backoff or a
    ///     cooldown; `nil` while attempting.
    ///   - ledger: the ledger of the parked request's client, when it is
    ///     not the one this machine decides on (`nil`: the machine's own).
    package mutating func resume(_ parked: Parked, lastOutcome: AttemptOutcome?, ledger: SharedRetryState? = nil) {
        precondition(!hedges && recording == .none, "resume(_:lastOutcome:) takes a machine that records no attempts")
        if let ledger, ledger !== decider.state { decider = RetryDecider(compiled: decider.compiled, state: ledger) }
        if !history.isEmpty { history.removeAll(keepingCapacity: true) }
        rejection = nil
        breakerTransition = nil
        input.outcome = lastOutcome ?? .status(200)
        input.elapsed = .zero
        input.now = nil
        input.attempt = Int(parked.attempt)
        input.credentialRefreshes = Int(parked.credentialRefreshes)
        input.lastRetryCost = parked.lastRetryCost
        input.previousDelay = parked.hasPreviousDelay ? parked.previousDelay : nil
        lastErrorKind = parked.hasLastAttempt ? parked.lastErrorKind : nil
        switch parked.phase {
        case .attempting: state = .attempting(startedAt: parked.attemptStartedAt, ticket: nil)
        case .attemptingWithTicket:
            state = .attempting(
                startedAt: parked.attemptStartedAt,
                ticket: CircuitBreakerStateMachine.Ticket(generation: parked.ticketGeneration))
        case .backingOff: state = .backingOff(refresh: false)
        case .backingOffThenRefreshing: state = .backingOff(refresh: true)
        case .coolingDown: state = .coolingDown
        case .rateLimited: state = .rateLimited
        }
    }
}
