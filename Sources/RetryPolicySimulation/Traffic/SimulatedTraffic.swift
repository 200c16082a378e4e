import RetryPolicyCore

/// Many requests under one policy on simulated time: the driver outage
/// storms and replays share.
///
/// Requests come from ``TrafficArrivals``, the server's answers from a
/// ``TrafficResponder``, and what happens goes to a ``TrafficObserver``.
/// Each request runs the `RequestStateMachine` the executor runs,
/// through the same simulated driver as ``RequestTimeline`` (one
/// `SimulatedRequest` per request in flight); this loop only orders their
/// events. Everything happens in order of `(time, id)`: of two requests
/// with something to do at the same moment, the lower id goes first. Each
/// request draws its jitter from a stream of its own, seeded from the
/// generator and its id, so a run is a function of its inputs and the
/// seed, and a request's draws do not depend on the other requests.
///
/// Memory follows the requests in flight, not the requests in total: a
/// request's state is dropped when it ends and arrivals are read only
/// when the simulation reaches them.
///
/// Requests that cannot affect each other need no common order:
/// ``runSeparately(arrivals:responder:observer:deciders:using:)`` runs
/// them one after another, each exactly as here.
public enum SimulatedTraffic {
    /// Whose budget, cooldown and circuit breaker each request uses.
    public enum Deciders: Sendable {
        /// One decider for every request, as for concurrent requests
        /// inside one process: they share its budget, cooldown and
        /// breaker.
        case shared(RetryDecider)
        /// Each request has a ledger of its own (a fresh budget, cooldown
        /// and breaker, as `RetryDecider(policy:)` makes them) under the
        /// compiled rules of this decider, as separate processes would.
        case perRequest(RetryDecider)
    }

    /// A request's next event in the queue: its time, the request's id,
    /// and where its state is: a parked request's slot (from 0), a hedged
    /// request's as `-1 - slot`, or ``arrival`` for the next request to
    /// arrive. A hedged request's entry is current while its time is the
    /// request's scheduled one: its timer can move, which leaves its
    /// earlier entry behind.
    private struct Event: QueuedEvent {
        var time: Duration
        var id: Int
        var slot: Int32

        /// The slot of the next arrival's event.
        static let arrival = Int32.min

        /// The 1,024th of a second: whole seconds and the top bits of the
        /// attoseconds, which never reverses the order of two times from
        /// zero on (an earlier time joins the current bucket).
        var bucket: Int64 {
            guard time >= .zero else { return -1 }
            let (seconds, attoseconds) = time.components
            return seconds >= 1 << 52 ? 1 << 62 : seconds << 10 + attoseconds >> 50
        }

        static func < (lhs: Event, rhs: Event) -> Bool {
            lhs.time < rhs.time || (lhs.time == rhs.time && lhs.id < rhs.id)
        }

        static func == (lhs: Event, rhs: Event) -> Bool { lhs.time == rhs.time && lhs.id == rhs.id }
    }

    /// A sequential request between events: parked, with its request as
    /// an index into the run's distinct requests. Its own ledger, when
    /// requests do not share one, is kept apart under the same slot, so
    /// that shared traffic pays nothing for it.
    private struct ParkedEntry {
        var request: SimulatedRequest.Parked
        var requestIndex: Int32
        var jitter: SplitMix64
    }

    /// A hedged request between events, whole (its machine keeps its
    /// decider and so its ledger), with its id and the time of its next
    /// event.
    private struct HedgedEntry {
        var request: SimulatedRequest
        var requestIndex: Int32
        var jitter: SplitMix64
        var id: Int
        var scheduled: Duration
    }

    /// Runs every arrival to its end, and returns when the last request
    /// has ended and `arrivals` has no more.
    ///
    /// - Parameters:
    ///   - arrivals: the requests, in order of `(time, id)`; asked for the
    ///     next one when the simulation reaches the time of the one before.
    ///   - responder: asked once for every attempt, as it starts.
    ///   - observer: told of every attempt, change of a shared breaker and
    ///     end of a request, in time order.
    ///   - deciders: one decider for every request, or state per request.
    ///   - generator: seeds each request's own source of jitter (one draw,
    ///     before the first request).
    public static func run<Arrivals: TrafficArrivals, Responder: TrafficResponder, Observer: TrafficObserver, G: RandomNumberGenerator>(
        arrivals: inout Arrivals, responder: inout Responder, observer: inout Observer, deciders: Deciders,
        using generator: inout G
    ) {
        let origin = RequestTimeline.origin
        var parked = RequestSlots<ParkedEntry>()
        var parkedStates = RequestSlots<SharedRetryState>()
        var hedged = RequestSlots<HedgedEntry>()
        var queue = EventQueue<Event>()
        // The next arrival waits in the queue like any event, so that
        // everything pushed is at or after the event being handled.
        let streams = generator.next()
        var arrival = arrivals.next()
        if let first = arrival { queue.push(Event(time: first.time, id: first.id, slot: Event.arrival)) }
        // Requests with state of their own each get a ledger of their own
        // under the same compiled rules; a parked one keeps its ledger
        // beside it and hands it to the machine that resumes it.
        let decider: RetryDecider
        let separate: Bool
        switch deciders {
        case .shared(let shared):
            decider = shared
            separate = false
        case .perRequest(let template):
            decider = template
            separate = true
        }
        var requests = DistinctRequests()
        /// Does what `action` asks of `request` at `time`, then keeps the
        /// request until its next event (in `parkedSlot` or `hedgedSlot` if
        /// it came from one) or reports its end. The request is `inout`
        /// so that it is never copied on its way.
        func handle(
            _ request: inout SimulatedRequest, _ action: RequestStateMachine.Action, id: Int, at time: Duration,
            requestIndex: Int32, jitter: SplitMix64, parkedSlot: Int?, hedgedSlot: Int?
        ) {
            if case .shared = deciders, let transition = request.machine.breakerTransition {
                observer.breakerChanged(transition, at: time)
            }
            let sent = requests[requestIndex]
            guard let end = perform(&request, action, id: id, sending: sent, responder: &responder, observer: &observer)
            else {
                let next = request.nextEvent!
                if request.isParkable {
                    if let hedgedSlot { hedged.release(hedgedSlot) }
                    let slot = parked.store(
                        ParkedEntry(request: request.park(), requestIndex: requestIndex, jitter: jitter), in: parkedSlot)
                    if separate { parkedStates.store(request.machine.decider.state, at: slot) }
                    queue.push(Event(time: next, id: id, slot: Int32(slot)))
                } else {
                    if let parkedSlot { parked.release(parkedSlot) }
                    let entry = HedgedEntry(
                        request: request, requestIndex: requestIndex, jitter: jitter, id: id, scheduled: next)
                    let slot = hedged.store(entry, in: hedgedSlot)
                    queue.push(Event(time: next, id: id, slot: Int32(-1 - slot)))
                }
                return
            }
            if let parkedSlot { parked.release(parkedSlot) }
            if let hedgedSlot { hedged.release(hedgedSlot) }
            report(end, of: request, id: id, at: time, observer: &observer)
        }

        // One request of each kind, which takes up each parked request of
        // that kind in turn to run its event: no request is made or
        // copied for an event.
        var resumers: [SimulatedRequest] = []
        while let event = queue.pop() {
            observer.reached(event.time)
            if event.slot == Event.arrival, let next = arrival {
                arrival = arrivals.next()
                if let following = arrival {
                    precondition((next.time, next.id) < (following.time, following.id), "arrivals come in order of (time, id)")
                    queue.push(Event(time: following.time, id: following.id, slot: Event.arrival))
                }
                let requestIndex = requests.index(of: next.request)
                if requests.count > resumers.count {
                    let machine = RequestStateMachine(
                        decider: decider, request: next.request, recordingNoAttempts: (), concurrentAttempts: false)
                    resumers.append(SimulatedRequest(machine: machine, startedAt: .zero, origin: origin))
                }
                var request = SimulatedRequest(
                    machine: RequestStateMachine(
                        decider: separate ? decider.withFreshState() : decider, request: next.request,
                        recordingNoAttempts: (), concurrentAttempts: true),
                    startedAt: next.time, origin: origin)
                let action = request.start()
                handle(
                    &request, action, id: next.id, at: next.time, requestIndex: requestIndex,
                    jitter: SplitMix64(stream: next.id, of: streams), parkedSlot: nil, hedgedSlot: nil)
            } else if event.slot >= 0 {
                let slot = Int(event.slot)
                let time = event.time
                guard var entry = parked.take(slot) else { preconditionFailure("a parked request has one event") }
                var state: SharedRetryState?
                if separate {
                    guard let own = parkedStates.take(slot) else { preconditionFailure("a parked request keeps its ledger") }
                    state = own
                }
                let kind = Int(entry.requestIndex)
                resumers[kind].resume(entry.request, at: time, state: state)
                let action = resumers[kind].advance(using: &entry.jitter)
                handle(
                    &resumers[kind], action, id: event.id, at: time, requestIndex: entry.requestIndex,
                    jitter: entry.jitter, parkedSlot: slot, hedgedSlot: nil)
            } else {
                let slot = Int(-1 - event.slot)
                let time = event.time
                // A hedged request's timer can move: an entry for an
                // earlier time is left behind, and skipped (what the slot
                // holds now goes back, moved rather than copied).
                guard var entry = hedged.take(slot) else { continue }
                guard entry.id == event.id, entry.scheduled == time else {
                    _ = hedged.store(entry, in: slot)
                    continue
                }
                let action = entry.request.advance(using: &entry.jitter)
                handle(
                    &entry.request, action, id: event.id, at: time, requestIndex: entry.requestIndex,
                    jitter: entry.jitter, parkedSlot: nil, hedgedSlot: slot)
            }
        }
    }

    /// Does what `action` asks of `request` (sent as `sent`): tells
    /// `observer` of every attempt it starts and asks `responder` for its
    /// outcome. Returns the action that ends the request, or `nil` while
    /// it goes on.
    static func perform<Responder: TrafficResponder, Observer: TrafficObserver>(
        _ request: inout SimulatedRequest, _ action: RequestStateMachine.Action, id: Int, sending sent: RetryRequest,
        responder: inout Responder, observer: inout Observer
    ) -> RequestStateMachine.Action? {
        let isHedged = request.machine.isHedged
        if case .wait(let delay, let reason) = action { observer.waited(delay, reason: reason, at: request.now) }
        return request.perform(action) { start in
            let attempt = TrafficAttempt(
                id: id, request: sent, number: start.number, time: start.at, timeLimit: start.timeLimit,
                hedged: isHedged)
            observer.attemptStarted(attempt)
            return responder.respond(to: attempt)
        }
    }

    /// Tells `observer` that request `id` ended at `time` with `end`.
    static func report<Observer: TrafficObserver>(
        _ end: RequestStateMachine.Action, of request: SimulatedRequest, id: Int, at time: Duration,
        observer: inout Observer
    ) {
        switch end {
        case .succeed:
            observer.requestFinished(id: id, at: time, result: .succeeded)
        case .fail(let failure):
            let rejected = request.machine.rejectedByCooldown
            observer.requestFinished(id: id, at: time, result: .failed(failure, rejectedByCooldown: rejected))
        default:
            preconditionFailure("perform returns only the action that ends the request")
        }
    }
}
