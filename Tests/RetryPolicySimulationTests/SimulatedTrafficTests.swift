import RetryPolicyCore
import RetryPolicySimulation
import RetryPolicyTestSupport
import Testing

/// The driver as a replay uses it: arrivals read only when the simulation
/// reaches them, the request each attempt belongs to, events in time order.
@Suite("Simulated traffic")
struct SimulatedTrafficTests {
    /// What the source and the observer both see.
    final class Log {
        var latestEvent = Duration.zero
        var readAhead: [String] = []
        var finished: [Int] = []
        var attempts: [TrafficAttempt] = []
    }

    struct Arrivals: TrafficArrivals {
        let log: Log
        let count: Int
        var sent = 0

        mutating func next() -> TrafficArrival? {
            // Arrival `sent - 1` was handed out last and has not run: nothing
            // after its time may have happened yet, and arrival `sent - 2`
            // (whose first attempt starts as it arrives) has run.
            if sent > 0, log.latestEvent > Self.time(sent - 1) {
                log.readAhead.append("arrival \(sent) read at \(log.latestEvent), after arrival \(sent - 1)")
            }
            if sent > 1, log.latestEvent < Self.time(sent - 2) {
                log.readAhead.append("arrival \(sent) read at \(log.latestEvent), before arrival \(sent - 2) ran")
            }
            guard sent < count else { return nil }
            defer { sent += 1 }
            return TrafficArrival(
                time: Self.time(sent), id: sent, request: RetryRequest(method: .get, endpoint: "e\(sent % 3)"))
        }

        static func time(_ index: Int) -> Duration { .milliseconds(100 * index) }
    }

    /// 503 to the first attempt of an even request, 200 otherwise, in 30 ms.
    struct Responder: TrafficResponder {
        func respond(to attempt: TrafficAttempt) -> (outcome: AttemptOutcome, duration: Duration) {
            (attempt.id % 2 == 0 && attempt.number == 1 ? .status(503) : .status(200), .milliseconds(30))
        }
    }

    struct Observer: TrafficObserver {
        let log: Log
        mutating func attemptStarted(_ attempt: TrafficAttempt) {
            #expect(attempt.time >= log.latestEvent, "events in time order")
            log.latestEvent = attempt.time
            log.attempts.append(attempt)
        }
        mutating func breakerChanged(_ transition: CircuitBreakerTransition, at time: Duration) {
            log.latestEvent = time
        }
        mutating func requestFinished(id: Int, at time: Duration, result: TrafficResult) {
            #expect(time >= log.latestEvent, "events in time order")
            log.latestEvent = time
            if case .succeeded = result { log.finished.append(id) }
        }
    }

    @Test("arrivals are read as the simulation reaches them; attempts carry their request; every request ends once")
    func streaming() {
        var policy = cleanPolicy().withBreaker(nil)
        policy.attempts = 3
        policy.backoff = Backoff(initial: .milliseconds(200), max: .seconds(1), jitter: .full)
        let log = Log()
        var arrivals = Arrivals(log: log, count: 200)
        var responder = Responder()
        var observer = Observer(log: log)
        var generator = SplitMix64(seed: 5)
        SimulatedTraffic.run(
            arrivals: &arrivals, responder: &responder, observer: &observer,
            deciders: .perRequest(RetryDecider(policy: policy)), using: &generator)
        #expect(log.readAhead.isEmpty, "\(log.readAhead.prefix(3))")
        #expect(log.finished.sorted() == Array(0..<200))
        #expect(log.attempts.count == 300, "one retry for each even request")
        for attempt in log.attempts {
            #expect(attempt.request.endpoint == "e\(attempt.id % 3)")
            #expect(attempt.number == 1 || attempt.id % 2 == 0)
        }
        // Retries wait a jittered backoff, so some start after later
        // requests' first attempts: the requests really are interleaved.
        let order = log.attempts.map(\.id)
        #expect(order != order.sorted())
    }
}
