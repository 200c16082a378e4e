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
/// with something to do at the same moment, the lower id goes first, and
/// jitter is drawn from one generator in that order, so a run is a
/// function of its inputs and the seed.
///
/// Memory follows the requests in flight, not the requests in total: a
/// request's state is dropped when it ends and arrivals are read only
/// when the simulation reaches them.
public enum SimulatedTraffic {
    /// Whose budget, cooldown and circuit breaker each request uses.
    public enum Deciders: Sendable {
        /// One decider for every request, as for concurrent requests
        /// inside one process: they share its budget, cooldown and
        /// breaker.
        case shared(RetryDecider)
        /// Each request has state of its own (a fresh budget, cooldown and
        /// breaker, as `RetryDecider(policy:)` makes them) under the
        /// policy of this decider, as separate processes would.
        case perRequest(RetryDecider)
    }

    /// A request's next event in the queue: its time as whole seconds and
    /// attoseconds (compared as integers, exactly as the durations
    /// compare), the request's id, and where its state is: a parked
    /// request's slot (from 0), or a hedged request's as `-1 - slot`. A
    /// hedged request's entry is current while its time is the request's
    /// scheduled one: its timer can move, which leaves its earlier entry
    /// behind.
    private struct Event: Comparable {
        var seconds: Int64
        /// The fraction of a second, in attoseconds (`Duration.components`).
        var fraction: Int64
        var id: Int
        var slot: Int32

        init(time: Duration, id: Int, slot: Int32) {
            (seconds, fraction) = time.components
            self.id = id
            self.slot = slot
        }

        var time: Duration { Duration(secondsComponent: seconds, attosecondsComponent: fraction) }

        static func < (lhs: Event, rhs: Event) -> Bool {
            if lhs.seconds != rhs.seconds { return lhs.seconds < rhs.seconds }
            if lhs.fraction != rhs.fraction { return lhs.fraction < rhs.fraction }
            return lhs.id < rhs.id
        }

        static func == (lhs: Event, rhs: Event) -> Bool {
            lhs.seconds == rhs.seconds && lhs.fraction == rhs.fraction && lhs.id == rhs.id
        }
    }

    /// A sequential request between events: parked, with its request as
    /// an index into the run's distinct requests, and its own decider when
    /// requests do not share one.
    private struct ParkedEntry {
        var request: SimulatedRequest.Parked
        var requestIndex: Int32
        var decider: RetryDecider?
    }

    /// A hedged request between events, whole, with its id and the time of
    /// its next event.
    private struct HedgedEntry {
        var request: SimulatedRequest
        var requestIndex: Int32
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
    ///   - generator: the source of jitter, drawn in event order.
    public static func run<Arrivals: TrafficArrivals, Responder: TrafficResponder, Observer: TrafficObserver, G: RandomNumberGenerator>(
        arrivals: inout Arrivals, responder: inout Responder, observer: inout Observer, deciders: Deciders,
        using generator: inout G
    ) {
        let origin = RequestTimeline.origin
        var parked = RequestSlots<ParkedEntry>()
        var hedged = RequestSlots<HedgedEntry>()
        var requests = DistinctRequests()
        var queue = MinHeap<Event>()
        var arrival = arrivals.next()
        var previous: (time: Duration, id: Int)?
        let sharedDecider: RetryDecider?
        if case .shared(let shared) = deciders { sharedDecider = shared } else { sharedDecider = nil }
        while true {
            // The request the event is for, resumed from its parked form
            // (or moved out of its slot, hedged) while it runs.
            var request: SimulatedRequest
            var requestIndex: Int32
            var ownDecider: RetryDecider?
            var parkedSlot: Int?
            var hedgedSlot: Int?
            var action: RequestStateMachine.Action
            let time: Duration
            let id: Int
            if let next = arrival, queue.first.map({ (next.time, next.id) < ($0.time, $0.id) }) ?? true {
                if let previous {
                    precondition((previous.time, previous.id) < (next.time, next.id), "arrivals come in order of (time, id)")
                }
                previous = (next.time, next.id)
                arrival = arrivals.next()
                let decider: RetryDecider
                switch deciders {
                case .shared(let shared): decider = shared
                case .perRequest(let template):
                    decider = template.withOwnState()
                    ownDecider = decider
                }
                requestIndex = requests.index(of: next.request)
                request = SimulatedRequest(
                    machine: RequestStateMachine(
                        decider: decider, request: next.request, keepsHistory: false, concurrentAttempts: true),
                    startedAt: next.time, origin: origin)
                action = request.start()
                time = next.time
                id = next.id
            } else if let event = queue.pop() {
                time = event.time
                id = event.id
                if event.slot >= 0 {
                    let slot = Int(event.slot)
                    guard let entry = parked.take(slot) else { preconditionFailure("a parked request has one event") }
                    requestIndex = entry.requestIndex
                    ownDecider = entry.decider
                    request = SimulatedRequest(
                        resuming: entry.request, at: time, decider: entry.decider ?? sharedDecider!,
                        request: requests[entry.requestIndex], origin: origin)
                    parkedSlot = slot
                } else {
                    let slot = Int(-1 - event.slot)
                    guard let entry = hedged.peek(slot), entry.id == id, entry.scheduled == time else { continue }
                    _ = hedged.take(slot)
                    request = entry.request
                    requestIndex = entry.requestIndex
                    hedgedSlot = slot
                }
                action = request.advance(using: &generator)
            } else {
                return
            }
            if case .shared = deciders, let transition = request.machine.breakerTransition {
                observer.breakerChanged(transition, at: time)
            }
            let isHedged = request.machine.isHedged
            let sent = requests[requestIndex]
            let finished = request.perform(action) { start in
                let attempt = TrafficAttempt(
                    id: id, request: sent, number: start.number, time: start.at, timeLimit: start.timeLimit,
                    hedged: isHedged)
                observer.attemptStarted(attempt)
                return responder.respond(to: attempt)
            }
            switch finished {
            case .none:
                let next = request.nextEvent!
                if request.isParkable {
                    if let hedgedSlot { hedged.release(hedgedSlot) }
                    let entry = ParkedEntry(request: request.park(), requestIndex: requestIndex, decider: ownDecider)
                    let slot = parked.store(entry, in: parkedSlot)
                    queue.push(Event(time: next, id: id, slot: Int32(slot)))
                } else {
                    if let parkedSlot { parked.release(parkedSlot) }
                    let entry = HedgedEntry(request: request, requestIndex: requestIndex, id: id, scheduled: next)
                    let slot = hedged.store(entry, in: hedgedSlot)
                    queue.push(Event(time: next, id: id, slot: Int32(-1 - slot)))
                }
            case .succeed?:
                if let parkedSlot { parked.release(parkedSlot) }
                if let hedgedSlot { hedged.release(hedgedSlot) }
                observer.requestFinished(id: id, at: time, result: .succeeded)
            case .fail(let failure)?:
                if let parkedSlot { parked.release(parkedSlot) }
                if let hedgedSlot { hedged.release(hedgedSlot) }
                let rejected = request.machine.rejectedByCooldown
                observer.requestFinished(id: id, at: time, result: .failed(failure, rejectedByCooldown: rejected))
            default:
                preconditionFailure("perform returns only the action that ends the request")
            }
        }
    }
}
