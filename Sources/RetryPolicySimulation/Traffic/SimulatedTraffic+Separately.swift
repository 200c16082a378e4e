import RetryPolicyCore

extension SimulatedTraffic {
    /// Runs requests that cannot affect each other one after another, each
    /// from its arrival to its end: what
    /// ``run(arrivals:responder:observer:deciders:using:)`` does for them,
    /// without keeping every request in flight and ordering their events.
    ///
    /// Requests are separate when each has state of its own
    /// (``Deciders/perRequest(_:)``) or the shared decider keeps none (no
    /// budget, breaker or cooldown). Each draws its jitter from the same
    /// stream as in `run`, so every request does exactly what it does
    /// there. Only the order of the reports differs: `observer` hears each
    /// request's events in order, requests in order of arrival, and
    /// ``TrafficObserver/reached(_:)`` before each arrival. The responder
    /// is asked in that order too, so it must answer by the attempt alone,
    /// not by what it was asked before.
    ///
    /// - Parameters:
    ///   - arrivals: the requests, in order of `(time, id)`.
    ///   - responder: asked once for every attempt, as it starts.
    ///   - observer: told of every attempt and end of a request.
    ///   - deciders: state per request, or one decider that keeps none.
    ///   - generator: seeds each request's own source of jitter (one draw,
    ///     before the first request).
    public static func runSeparately<
        Arrivals: TrafficArrivals, Responder: TrafficResponder, Observer: TrafficObserver, G: RandomNumberGenerator
    >(
        arrivals: inout Arrivals, responder: inout Responder, observer: inout Observer, deciders: Deciders,
        using generator: inout G
    ) {
        let origin = RequestTimeline.origin
        let streams = generator.next()
        let decider: RetryDecider
        let separate: Bool
        switch deciders {
        case .shared(let shared):
            precondition(!shared.keepsState, "requests sharing a budget, breaker or cooldown run together, with run(...)")
            decider = shared
            separate = false
        case .perRequest(let template):
            decider = template
            separate = true
        }
        var previous: (time: Duration, id: Int)?
        while let arrival = arrivals.next() {
            let (time, id, sent) = (arrival.time, arrival.id, arrival.request)
            if let previous { precondition(previous < (time, id), "arrivals come in order of (time, id)") }
            previous = (time, id)
            observer.reached(time)
            var jitter = SplitMix64(stream: id, of: streams)
            var request = SimulatedRequest(
                machine: RequestStateMachine(
                    decider: separate ? decider.withFreshState() : decider, request: sent, recordingNoAttempts: (), concurrentAttempts: true),
                startedAt: time, origin: origin)
            var action = request.start()
            while true {
                if let end = perform(&request, action, id: id, sending: sent, responder: &responder, observer: &observer) {
                    report(end, of: request, id: id, at: request.now, observer: &observer)
                    break
                }
                action = request.advance(using: &jitter)
            }
        }
    }
}
