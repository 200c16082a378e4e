import RetryPolicyCore

/// One request driven on simulated time: the driver ``RequestTimeline``
/// and ``OutageStorm`` share, so that both turn the request state
/// machine's actions into events the same way the executor does.
///
/// It keeps what the machine asked for and has not happened yet: the
/// attempts in flight (a hedged request has several), each with the time
/// it ends and its outcome, and one timer (a wait, or the next hedge).
/// ``advance(using:)`` moves to the earliest of them and tells the machine;
/// an attempt that ends at the same moment as the timer comes first, as
/// an answer that arrives with a hedge's timer is seen before it fires.
struct SimulatedRequest: Sendable {
    private(set) var machine: RequestStateMachine
    /// Time since the simulation began at which the request started.
    private(set) var startedAt: Duration
    let origin: Timestamp
    /// The time of the last event, since the simulation began.
    private(set) var now: Duration

    private struct InFlight: Sendable {
        var number: Int
        var end: Duration
        var outcome: AttemptOutcome
    }
    /// The attempts in flight: the one a sequential request sends is kept
    /// inline (a storm holds a million requests between events), further
    /// copies of a hedged request in `copies`.
    private var single: InFlight?
    private var copies: [InFlight] = []
    private var timer: (at: Duration, isWait: Bool)?
    /// The outcome of the last attempt that finished: a machine parked
    /// while it waits needs it back to resume.
    private var lastOutcome: AttemptOutcome?

    init(machine: RequestStateMachine, startedAt: Duration, origin: Timestamp) {
        self.machine = machine
        self.startedAt = startedAt
        self.origin = origin
        now = startedAt
    }

    /// A request kept between events in its parked form: the machine's,
    /// when the request started, and the outcome of the attempt in flight
    /// (or, while it waits, of the last attempt).
    struct Parked: Sendable {
        var machine: RequestStateMachine.Parked
        var startedAt: Duration
        var outcome: AttemptOutcome?
    }

    /// Whether ``park()`` can keep the request: a sequential one (a hedged
    /// request has several attempts in flight and a timer that moves).
    var isParkable: Bool { machine.isParkable }

    /// The request in its parked form, to be resumed at ``nextEvent``.
    func park() -> Parked {
        let machine = machine.park()
        return Parked(machine: machine, startedAt: startedAt, outcome: machine.isAttempting ? single?.outcome : lastOutcome)
    }

    /// Takes up, in place of this request (one whose machine was made for
    /// the same request and decider with `recordingNoAttempts`, whatever
    /// it did since), the request parked by ``park()`` whose next event is
    /// at `time`: a driver reuses one rather than making one for every
    /// event. `state` is the parked request's own ledger, when requests
    /// do not share one.
    mutating func resume(_ parked: Parked, at time: Duration, state: SharedRetryState? = nil) {
        let attempting = parked.machine.isAttempting
        machine.resume(parked.machine, lastOutcome: attempting ? nil : parked.outcome, ledger: state)
        startedAt = parked.startedAt
        now = time
        copies.removeAll()
        if attempting {
            guard let outcome = parked.outcome else { preconditionFailure("a request parked while attempting keeps the attempt's outcome") }
            single = InFlight(number: machine.attempt, end: time, outcome: outcome)
            timer = nil
            lastOutcome = nil
        } else {
            single = nil
            timer = (time, true)
            lastOutcome = parked.outcome
        }
    }

    /// The request time of `time` (since the simulation began).
    func requestTime(_ time: Duration) -> RequestTime {
        RequestTime(elapsed: time - startedAt, wall: origin + time)
    }

    /// When the next thing happens, or `nil` once the request is over.
    var nextEvent: Duration? {
        var attempt = single?.end
        for copy in copies where attempt.map({ copy.end < $0 }) ?? true { attempt = copy.end }
        switch (attempt, timer?.at) {
        case (let a?, let t?): return min(a, t)
        case (let a?, nil): return a
        case (nil, let t?): return t
        case (nil, nil): return nil
        }
    }

    /// The request starts (admission, then the first attempt).
    mutating func start() -> RequestStateMachine.Action {
        machine.start(at: requestTime(startedAt))
    }

    /// An attempt the machine started: its number, when, and its limit.
    struct Start {
        var number: Int
        var at: Duration
        var timeLimit: Duration?
    }

    /// Does what `action` asks at ``now``: starts attempts (asking
    /// `respond` for each one's outcome and duration), sets the timer,
    /// refreshes credentials at once. Returns the action that ends the
    /// request (`succeed` or `fail`), or `nil` while it goes on.
    mutating func perform(
        _ action: RequestStateMachine.Action,
        respond: (Start) -> (outcome: AttemptOutcome, duration: Duration)
    ) -> RequestStateMachine.Action? {
        var action = action
        while true {
            switch action {
            case .startAttempt(let number, let limit):
                let (outcome, duration) = respond(Start(number: number, at: now, timeLimit: limit))
                single = InFlight(number: number, end: now + duration, outcome: outcome)
                copies.removeAll()
                timer = nil
                return nil
            case .hedge(let start, let next):
                if let start {
                    let (outcome, duration) = respond(Start(number: start.number, at: now, timeLimit: start.timeLimit))
                    let copy = InFlight(number: start.number, end: now + duration, outcome: outcome)
                    if single == nil { single = copy } else { copies.append(copy) }
                }
                timer = next.map { (now + $0, false) }
                return nil
            case .wait(let delay, _):
                timer = (now + delay, true)
                return nil
            case .refreshCredentials:
                action = machine.credentialRefreshFinished(at: requestTime(now))
            case .payBudget(let payment):
                // Simulated time never waits on shared state.
                action = machine.budgetPaid(payment.settleWithoutWaiting(), at: requestTime(now))
            case .claimProbe(let claim):
                action = machine.probeClaimed(claim.settleWithoutWaiting(), at: requestTime(now))
            case .succeed, .fail:
                single = nil
                copies.removeAll()
                timer = nil
                return action
            }
        }
    }

    /// Moves to the next event and tells the machine; returns its answer
    /// (for ``perform(_:respond:)``).
    mutating func advance<G: RandomNumberGenerator>(using generator: inout G) -> RequestStateMachine.Action {
        guard let next = nextEvent else { preconditionFailure("advance() on a request with nothing pending") }
        now = next
        let time = requestTime(next)
        if let attempt = removeEarliestAttempt(endingAt: next) {
            lastOutcome = attempt.outcome
            if machine.isHedged {
                return machine.attemptFinished(
                    attempt.number, attempt.outcome, at: time, producedValue: attempt.outcome.isResponse,
                    using: &generator)
            }
            return machine.attemptFinished(
                attempt.outcome, at: time, producedValue: attempt.outcome.isResponse, using: &generator)
        }
        let isWait = timer?.isWait ?? false
        timer = nil
        return isWait ? machine.waitFinished(at: time) : machine.hedgeDelayElapsed(at: time)
    }

    /// Takes out the attempt in flight that ends at `time`, the lowest
    /// numbered one if several do.
    private mutating func removeEarliestAttempt(endingAt time: Duration) -> InFlight? {
        var best: Int?
        for index in copies.indices where copies[index].end == time {
            if best.map({ copies[index].number < copies[$0].number }) ?? true { best = index }
        }
        if let first = single, first.end == time, best.map({ first.number < copies[$0].number }) ?? true {
            single = nil
            return first
        }
        return best.map { copies.remove(at: $0) }
    }
}

extension AttemptOutcome {
    /// Whether the attempt produced a value: a response arrived (as
    /// opposed to a transport failure), or a gRPC call ended with OK (any
    /// other gRPC status is an error, with no value, in gRPC clients).
    var isResponse: Bool {
        switch self {
        case .response: true
        case .grpc(let status, _): status == .ok
        case .transport, .condition: false
        }
    }
}
