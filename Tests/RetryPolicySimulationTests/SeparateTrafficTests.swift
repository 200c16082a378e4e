import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

/// Requests that cannot affect each other run one after another
/// (`runSeparately`) exactly as they run interleaved in time order
/// (`run`): over generated policies with jitter, hedging, budgets,
/// breakers and cooldowns of their own, every request must start the same
/// attempts at the same times and end the same way in both.
@Suite("Separate requests run alone as they run together")
struct SeparateTrafficTests {
    /// Starts drawn from a seed, handed out in order of `(time, id)`.
    struct Arrivals: TrafficArrivals {
        var arrivals: [TrafficArrival]
        var position = 0

        init(count: Int, spread: Duration, seed: UInt64) {
            var generator = SplitMix64(seed: seed)
            let upper = spread.nanosecondsSaturated
            arrivals = (0..<count).map { id in
                TrafficArrival(
                    time: .nanoseconds(upper == 0 ? 0 : Int64.random(in: 0...upper, using: &generator)), id: id,
                    request: RetryRequest(method: id % 5 == 4 ? .post : .get))
            }
            arrivals.sort { ($0.time, $0.id) < ($1.time, $1.id) }
        }

        mutating func next() -> TrafficArrival? {
            guard position < arrivals.count else { return nil }
            defer { position += 1 }
            return arrivals[position]
        }
    }

    /// An outage answered by the attempt alone: `outcome` before `outage`,
    /// then 200, each taking a latency that depends on the request and
    /// attempt (cut at the attempt's limit, as a timeout).
    struct Responder: TrafficResponder {
        var outage: Duration
        var outcome: AttemptOutcome

        func respond(to attempt: TrafficAttempt) -> (outcome: AttemptOutcome, duration: Duration) {
            let latency = Duration.milliseconds((attempt.id * 37 + attempt.number * 11) % 400)
            let answer = attempt.time < outage ? outcome : .status(200)
            if let limit = attempt.timeLimit, latency >= limit { return (.transport(.timeout), limit) }
            if case .transport(.timeout) = answer { return (answer, attempt.timeLimit ?? .seconds(30)) }
            return (answer, latency)
        }
    }

    /// Every request's attempts and end, and whether anything was reported
    /// before a time already reached.
    struct Recorder: TrafficObserver {
        var attempts: [Int: [String]] = [:]
        var ends: [Int: String] = [:]
        var reachedTime = Duration.zero
        var late: [String] = []

        mutating func attemptStarted(_ attempt: TrafficAttempt) {
            if attempt.time < reachedTime { late.append("attempt of \(attempt.id) at \(attempt.time)") }
            attempts[attempt.id, default: []].append(
                "\(attempt.number)@\(attempt.time) limit \(String(describing: attempt.timeLimit)) hedged \(attempt.hedged)")
        }

        mutating func breakerChanged(_ transition: CircuitBreakerTransition, at time: Duration) {}

        mutating func requestFinished(id: Int, at time: Duration, result: TrafficResult) {
            if time < reachedTime { late.append("end of \(id) at \(time)") }
            #expect(ends[id] == nil, "request \(id) ends once")
            switch result {
            case .succeeded: ends[id] = "succeeded at \(time)"
            case .failed(let failure, let rejected):
                ends[id] = "\(failure.kind) \(failure.reason) at \(time), rejected by cooldown \(rejected)"
            }
        }

        mutating func reached(_ time: Duration) {
            #expect(time >= reachedTime, "reached times only move forward")
            reachedTime = time
        }
    }

    /// A storm's policy with any jitter: requests run separately draw their
    /// delays from their own generators.
    static func policy(_ genes: [Int]) -> Policy {
        var generator = PolicyGenerator.traffic
        generator.jitters = Backoff.Jitter.allCases
        return generator.policy(seed: PolicyGenerator.seed(genes.prefix(11) + [genes[16]]))
    }

    @Test("per-request state, and shared deciders that keep none: each request does the same alone")
    func separateIsInterleaved() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...1_000).array(of: 20), Gen.int(in: 1...60), Gen.uint64(in: 0...UInt64.max)
        ) { genes, count, seed in
            var policy = Self.policy(genes)
            let shared = genes[17] % 3 == 0
            if shared {
                // One decider for all runs separately only when it keeps
                // nothing requests could share.
                policy.budget = nil
                policy.breaker = nil
                policy.retryAfter.cooldown = .off
            }
            let decider = RetryDecider(policy: policy)
            let deciders: SimulatedTraffic.Deciders = shared ? .shared(decider) : .perRequest(decider)
            let spread: Duration = [.zero, .milliseconds(300), .seconds(4)][genes[18] % 3]
            let outcomes: [AttemptOutcome] = [
                .status(503), .response(status: 429, headers: ["Retry-After": "1"]), .transport(.timeout),
                .transport(.connectionLost), .response(status: 503, headers: ["Retry-After": "4"]),
            ]
            let responder = Responder(
                outage: [.milliseconds(700), .seconds(3), .seconds(20)][genes[19] % 3],
                outcome: outcomes[genes[15] % outcomes.count])

            var together = Recorder()
            var arrivals = Arrivals(count: count, spread: spread, seed: seed)
            var answers = responder
            var generator = SplitMix64(seed: seed)
            SimulatedTraffic.run(
                arrivals: &arrivals, responder: &answers, observer: &together, deciders: deciders, using: &generator)

            var alone = Recorder()
            arrivals = Arrivals(count: count, spread: spread, seed: seed)
            answers = responder
            generator = SplitMix64(seed: seed)
            SimulatedTraffic.runSeparately(
                arrivals: &arrivals, responder: &answers, observer: &alone, deciders: deciders, using: &generator)

            #expect(together.ends.count == count)
            #expect(alone.ends == together.ends)
            #expect(alone.attempts == together.attempts)
            #expect(together.late.isEmpty)
            #expect(alone.late.isEmpty)
        }
    }

    @Test("a storm of separate clients reports what the same clients report interleaved, and run in parts")
    func stormSeparateIsInterleaved() async {
        // OutageStorm runs per-client storms separately, in parts when
        // they are many; the same storm through the interleaved loop, and
        // in any number of parts, must count the same, burst included.
        await propertyCheck(
            count: 60, input: Gen.int(in: 0...1_000).array(of: 20), Gen.int(in: 1...300), Gen.int(in: 1...1_000)
        ) { genes, clients, seed in
            let policy = Self.policy(genes)
            let configuration = StormPropertyTests.configuration(genes, clients: clients, seed: UInt64(seed))
            let storm = OutageStorm.run(policy: policy, configuration: configuration, interleaved: false, parts: 1)
            let interleaved = OutageStorm.run(policy: policy, configuration: configuration, interleaved: true, parts: nil)
            let parted = OutageStorm.run(
                policy: policy, configuration: configuration, interleaved: false, parts: 2 + genes[19] % 7)
            for other in [interleaved, parted] {
                #expect(storm.load == other.load)
                #expect(storm.configuration.window == other.configuration.window)
                #expect(storm.totalRequests == other.totalRequests)
                #expect(storm.outageRequests == other.outageRequests)
                #expect((storm.peak, storm.peakAt) == (other.peak, other.peakAt))
                #expect(storm.retryBurst == other.retryBurst)
                #expect(storm.hedges == other.hedges)
                #expect(storm.succeeded == other.succeeded)
                #expect(storm.failures == other.failures)
                #expect(storm.rejectedByCooldown == other.rejectedByCooldown)
                #expect(storm.finishedAt == other.finishedAt)
            }
        }
    }
}
