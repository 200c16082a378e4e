import PropertyBased
import RetryPolicyCore
import RetryPolicySimulation
import RetryPolicyTestSupport
import Testing

/// A storm whose clients each have their own budget, cooldown and breaker
/// is its clients' requests side by side: over generated policies and
/// outages, its totals, load and bursts must be those of running every
/// client's request alone through ``RequestTimeline``, the single-request
/// simulation, and adding them up. Without jitter nothing random decides,
/// so the order in which the storm draws from its generator cannot matter.
@Suite("Storms against their clients run one by one")
struct StormPropertyTests {
    /// The policy drawn from the first eleven genes; the rest shape the storm.
    static func policy(_ genes: [Int]) -> Policy {
        PolicyGenerator.traffic.policy(seed: PolicyGenerator.seed(genes.prefix(11)))
    }

    static func configuration(_ genes: [Int], clients: Int, seed: UInt64) -> OutageStorm.Configuration {
        func pick<T>(_ index: Int, _ options: [T]) -> T { options[genes[index] % options.count] }
        let responses: [AttemptOutcome] = [
            .status(503), .response(status: 429, headers: ["Retry-After": "1"]), .transport(.timeout), .status(500),
            .status(404), .response(status: 503, headers: ["Retry-After": "5"]),
        ]
        return OutageStorm.Configuration(
            clients: clients, outage: pick(11, [.milliseconds(500), .seconds(2), .seconds(10)]),
            outageResponse: ScriptedResponse(outcome: pick(12, responses)),
            spread: pick(13, [.zero, .seconds(1), .seconds(5)]),
            latency: pick(14, [.zero, .milliseconds(50), .milliseconds(300)]),
            window: pick(15, [.milliseconds(1), .milliseconds(100), .seconds(1)]), shared: false, seed: seed)
    }

    /// One client's request alone: attempt `k` gets the outage response
    /// when it starts before the outage ends, 200 otherwise. A script is
    /// indexed by attempt number, so it is found by running until the
    /// responses agree with the start times (attempts before the first
    /// that disagrees run the same in every pass).
    static func alone(policy: Policy, configuration: OutageStorm.Configuration, start: Duration) -> RequestTimeline {
        let outage = (configuration.outageResponse, configuration.latency)
        let recovered = (ScriptedResponse(outcome: .status(200)), configuration.latency)
        var script = [start < configuration.outage ? outage : recovered]
        while true {
            let timeline = RequestTimeline.simulate(policy: policy, responses: script, seed: 1)
            let wanted = timeline.attempts.sorted { $0.number < $1.number }.map {
                start + $0.start < configuration.outage
            }
            var agreed = true
            for (index, during) in wanted.enumerated() {
                let given = index < script.count ? script[index] : script[script.count - 1]
                if (given.0 == outage.0) != during {
                    script = Array(script.prefix(index)) + [during ? outage : recovered]
                    agreed = false
                    break
                }
                if index >= script.count { script.append(given) }
            }
            if agreed { return timeline }
        }
    }

    @Test("per-client state: the storm's totals, load, finish and burst are its clients' requests added up")
    func stormIsItsClients() async {
        await propertyCheck(
            count: 150, input: Gen.int(in: 0...1_000).array(of: 16), Gen.int(in: 1...40), Gen.int(in: 1...1_000)
        ) { genes, clients, seed in
            Self.check(genes: genes, clients: clients, seed: seed)
        }
    }

    static func check(genes: [Int], clients: Int, seed: Int) {
        let policy = Self.policy(genes)
        let configuration = Self.configuration(genes, clients: clients, seed: UInt64(seed))
        let storm = OutageStorm.run(policy: policy, configuration: configuration)

        var generator = SplitMix64(seed: configuration.seed)
        var starts: [Duration] = []
        for _ in 0..<clients {
            var start = Duration.zero
            if configuration.spread > .zero {
                start = .nanoseconds(
                    Int64.random(in: 0...configuration.spread.nanosecondsSaturated, using: &generator))
            }
            starts.append(start)
        }
        var attemptStarts: [Duration] = []
        var retryStarts: [Duration] = []
        var succeeded = 0
        var stops: [StopReason: Int] = [:]
        var finishedAt = Duration.zero
        for start in starts {
            let timeline = Self.alone(policy: policy, configuration: configuration, start: start)
            for attempt in timeline.attempts {
                attemptStarts.append(start + attempt.start)
                if attempt.number > 1 { retryStarts.append(start + attempt.start) }
            }
            if timeline.result.action == .success {
                succeeded += 1
            } else if let reason = timeline.result.reason {
                stops[reason, default: 0] += 1
            }
            finishedAt = max(finishedAt, start + timeline.elapsed)
        }

        #expect(storm.totalRequests == attemptStarts.count)
        #expect(storm.outageRequests == attemptStarts.filter { $0 < configuration.outage }.count)
        #expect(storm.succeeded == succeeded)
        var failures = storm.failures
        // A cooldown's refusal is a stop as not_retryable, which the
        // storm counts apart.
        if storm.rejectedByCooldown > 0 { failures[.notRetryable, default: 0] += storm.rejectedByCooldown }
        #expect(failures == stops)
        #expect(storm.finishedAt == finishedAt)
        let width = storm.configuration.window.nanosecondsSaturated
        var load: [Int] = []
        for start in attemptStarts {
            let slot = Int(start.nanosecondsSaturated / width)
            if slot >= load.count { load += Array(repeating: 0, count: slot - load.count + 1) }
            load[slot] += 1
        }
        #expect(storm.load == load)
        retryStarts.sort()
        var burst = 0
        var low = 0
        for high in retryStarts.indices {
            while retryStarts[high] - retryStarts[low] >= OutageStorm.burstWindow { low += 1 }
            burst = max(burst, high - low + 1)
        }
        #expect(storm.retryBurst == burst)
        if policy.hedging != nil {
            #expect(storm.hedges == retryStarts.count)
        } else {
            #expect(storm.hedges == 0)
        }
    }
}
