import RetryPolicyCore

/// Many requests under one policy on simulated time: the driver outage
/// storms and replays share.
///
/// Requests come from ``TrafficArrivals``, the server's answers from a
/// ``TrafficResponder``, and what happens goes to a ``TrafficObserver``.
/// Each request runs the ``RequestStateMachine`` the executor runs,
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

    /// A request's next event in the queue. An entry is current while its
    /// time is the request's ``Slot/scheduled`` time: a hedged request's
    /// timer can move, which leaves its earlier entry behind.
    private struct Event: Comparable {
        var time: Duration
        var id: Int
        var slot: Int32
        static func < (lhs: Event, rhs: Event) -> Bool { (lhs.time, lhs.id) < (rhs.time, rhs.id) }
        static func == (lhs: Event, rhs: Event) -> Bool { lhs.time == rhs.time && lhs.id == rhs.id }
    }

    /// A request in flight.
    private struct Slot {
        var request: SimulatedRequest
        var id: Int
        var scheduled: Duration
    }

    /// Runs every arrival to its end.
    ///
    /// - Parameters:
    ///   - generator: the source of jitter, drawn in event order.
    public static func run<Arrivals: TrafficArrivals, Responder: TrafficResponder, Observer: TrafficObserver, G: RandomNumberGenerator>(
        arrivals: inout Arrivals, responder: inout Responder, observer: inout Observer, deciders: Deciders,
        using generator: inout G
    ) {
        let origin = RequestTimeline.origin
        var slots: [Slot?] = []
        var free: [Int32] = []
        var queue = MinHeap<Event>()
        var arrival = arrivals.next()
        var previous: (time: Duration, id: Int)?
        while true {
            let index: Int
            var action: RequestStateMachine.Action
            let time: Duration
            if let next = arrival, queue.first.map({ (next.time, next.id) < ($0.time, $0.id) }) ?? true {
                if let previous {
                    precondition((previous.time, previous.id) < (next.time, next.id), "arrivals come in order of (time, id)")
                }
                previous = (next.time, next.id)
                arrival = arrivals.next()
                let decider: RetryDecider
                switch deciders {
                case .shared(let shared): decider = shared
                case .perRequest(let template): decider = template.withOwnState()
                }
                var request = SimulatedRequest(
                    machine: RequestStateMachine(
                        decider: decider, request: next.request, keepsHistory: false, concurrentAttempts: true),
                    startedAt: next.time, origin: origin)
                action = request.start()
                if let slot = free.popLast() {
                    index = Int(slot)
                    slots[index] = Slot(request: request, id: next.id, scheduled: next.time)
                } else {
                    index = slots.count
                    slots.append(Slot(request: request, id: next.id, scheduled: next.time))
                }
                time = next.time
            } else if let event = queue.pop() {
                index = Int(event.slot)
                guard let slot = slots[index], slot.id == event.id, slot.scheduled == event.time else { continue }
                action = slots[index]!.request.advance(using: &generator)
                time = event.time
            } else {
                return
            }
            if case .shared = deciders, let transition = slots[index]!.request.machine.breakerTransition {
                observer.breakerChanged(transition, at: time)
            }
            let id = slots[index]!.id
            let hedged = slots[index]!.request.machine.isHedged
            let finished = slots[index]!.request.perform(action) { start in
                let attempt = TrafficAttempt(
                    id: id, number: start.number, time: start.at, timeLimit: start.timeLimit, hedged: hedged)
                observer.attemptStarted(attempt)
                return responder.respond(to: attempt)
            }
            switch finished {
            case .none:
                let next = slots[index]!.request.nextEvent!
                slots[index]!.scheduled = next
                queue.push(Event(time: next, id: id, slot: Int32(index)))
            case .succeed?:
                slots[index] = nil
                free.append(Int32(index))
                observer.requestFinished(id: id, at: time, result: .succeeded)
            case .fail(let failure)?:
                let rejected = slots[index]!.request.machine.rejectedByCooldown
                slots[index] = nil
                free.append(Int32(index))
                observer.requestFinished(id: id, at: time, result: .failed(failure, rejectedByCooldown: rejected))
            default:
                preconditionFailure("perform returns only the action that ends the request")
            }
        }
    }
}
