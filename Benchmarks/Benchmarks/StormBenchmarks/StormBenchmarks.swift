import Benchmark
import RetryPolicyCore
import RetryPolicySimulation
import RetryPolicyYAML

/// Outage storms as `retry-policy simulate --clients N --outage 20s` runs
/// them (the storm, and again without the breaker when the policy has
/// one), for tmdb.yaml (no state per client) and the starter policy
/// `retry-policy init` writes (a breaker per client); single storms of a
/// million clients, with and without that breaker; and a stream of
/// requests through `SimulatedTraffic` as a replay drives it: a million
/// arrivals spread over an hour, generated as the simulation reaches them,
/// so memory follows the requests in flight.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 0,
        maxDuration: .seconds(1),
        maxIterations: 3
    )
    let root = String(#filePath.split(separator: "/Benchmarks/Benchmarks/", maxSplits: 1)[0])
    let loader = PolicyLoader()
    let tmdb = try! loader.loadPolicy(atPath: root + "/policies/tmdb.yaml")
    let starter = try! loader.loadPolicy(atPath: root + "/Tests/RetryPolicySimulationTests/StormGolden/starter.yaml")
    let outage = try! ScriptedResponse.parse("503").get()

    for (name, policy) in [("tmdb", tmdb), ("starter", starter)] {
        for (label, clients) in [("100k", 100_000), ("1m", 1_000_000)] {
            Benchmark("storm.\(name)-\(label)") { benchmark in
                let configuration = OutageStorm.Configuration(clients: clients, outage: .seconds(20), outageResponse: outage)
                blackHole(StormReport.run(policy: policy, configuration: configuration))
            }
        }
    }

    // One storm, as the 3-second target counts it: `storm.*` above runs
    // the starter policy's storm twice (with its breaker and without).
    var withoutBreaker = starter
    withoutBreaker.breaker = nil
    for (name, policy) in [("tmdb", tmdb), ("starter", starter), ("starter-without-breaker", withoutBreaker)] {
        Benchmark("outage-storm.\(name)-1m") { benchmark in
            let configuration = OutageStorm.Configuration(clients: 1_000_000, outage: .seconds(20), outageResponse: outage)
            blackHole(OutageStorm.run(policy: policy, configuration: configuration))
        }
    }

    for (name, policy) in [("tmdb", tmdb), ("starter", starter)] {
        Benchmark("traffic.stream-1m-\(name)") { benchmark in
            var arrivals = SteadyArrivals(count: 1_000_000, every: .milliseconds(3) + .microseconds(600))
            var responder = FlakyResponder()
            var counter = TrafficCounter()
            var generator = SplitMix64(seed: 1)
            SimulatedTraffic.run(
                arrivals: &arrivals, responder: &responder, observer: &counter,
                deciders: .perRequest(RetryDecider(policy: policy)), using: &generator)
            precondition(counter.finished == 1_000_000)
            blackHole(counter)
        }
    }
}

/// `count` requests one every `every`, made as they are asked for.
struct SteadyArrivals: TrafficArrivals {
    let count: Int
    let every: Duration
    private var sent = 0

    init(count: Int, every: Duration) {
        self.count = count
        self.every = every
    }

    mutating func next() -> TrafficArrival? {
        guard sent < count else { return nil }
        defer { sent += 1 }
        return TrafficArrival(time: every * sent, id: sent)
    }
}

/// A server that answers one attempt in five with 503 (by the request's
/// id and attempt number), each in 40 ms.
struct FlakyResponder: TrafficResponder {
    func respond(to attempt: TrafficAttempt) -> (outcome: AttemptOutcome, duration: Duration) {
        let failing = (attempt.id &* 31 &+ attempt.number) % 5 == 0
        return (failing ? .status(503) : .status(200), .milliseconds(40))
    }
}

struct TrafficCounter: TrafficObserver {
    var attempts = 0
    var finished = 0
    var succeeded = 0

    mutating func attemptStarted(_ attempt: TrafficAttempt) { attempts += 1 }
    mutating func breakerChanged(_ transition: CircuitBreakerTransition, at time: Duration) {}
    mutating func requestFinished(id: Int, at time: Duration, result: TrafficResult) {
        finished += 1
        if case .succeeded = result { succeeded += 1 }
    }
}
