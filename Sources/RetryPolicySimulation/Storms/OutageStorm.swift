import Dispatch
import RetryPolicyCore

/// Many clients hitting one outage at once: how much load their retries put
/// on the server, second by second. This is what jitter and budgets are for,
/// and the simulation makes the difference visible.
public struct OutageStorm: Sendable {
    public struct Configuration: Sendable {
        public var clients: Int
        /// How long the server answers with `outageResponse`; afterwards it
        /// answers 200.
        public var outage: Duration
        public var outageResponse: ScriptedResponse
        /// Clients start uniformly within this window (zero: all at once).
        public var spread: Duration
        /// Time one attempt takes; an attempt that runs into its time limit
        /// (and a `timeout`, which never answers) ends there as a timeout.
        public var latency: Duration
        /// Width of one bar of the load histogram.
        public var window: Duration
        /// One decider (budget, cooldown) for every client, as for
        /// concurrent requests inside one process; otherwise one per client.
        public var shared: Bool
        public var seed: UInt64

        public init(
            clients: Int, outage: Duration, outageResponse: ScriptedResponse, spread: Duration = .zero,
            latency: Duration = .zero, window: Duration = .seconds(1), shared: Bool = false, seed: UInt64 = 1
        ) {
            self.clients = clients
            self.outage = outage
            self.outageResponse = outageResponse
            self.spread = spread
            self.latency = latency
            self.window = window
            self.shared = shared
            self.seed = seed
        }
    }

    public var configuration: Configuration
    /// Requests that reached the server in each window, from time zero.
    public var load: [Int]
    public var totalRequests: Int
    public var peak: Int
    /// Start of the busiest window.
    public var peakAt: Duration
    public var succeeded: Int
    /// Final failures by stop reason.
    public var failures: [StopReason: Int]
    /// Requests refused by a cooldown before reaching the server.
    public var rejectedByCooldown: Int
    /// When the last client finished.
    public var finishedAt: Duration
    /// The most retries (attempts after the first) that reached the server
    /// within any ``burstWindow``: the synchronisation jitter exists to
    /// break up, which per-second counts hide.
    public var retryBurst: Int

    /// Requests that reached the server before the outage ended.
    public var outageRequests: Int = 0
    /// When a shared circuit breaker was open or half-open (one decider for
    /// every client); empty otherwise.
    public var breakerPeriods: [BreakerPeriod] = []
    /// Attempts that hedged requests started while an earlier copy was in
    /// flight or had failed (every copy after the first): the extra load
    /// hedging puts on the server. Counted in ``totalRequests`` too.
    public var hedges: Int = 0
    /// Attempts the adaptive rate limiter (`rate_limit`) held back, and
    /// their waits added up.
    public var rateLimitWaits: Int = 0
    public var rateLimitWaited: Duration = .zero

    /// A stretch of time a shared breaker spent open or half-open; `end`
    /// is `nil` when the storm ended first.
    public struct BreakerPeriod: Hashable, Sendable {
        public enum State: String, Hashable, Sendable {
            case open
            case halfOpen = "half_open"
        }
        public var state: State
        public var start: Duration
        public var end: Duration?
    }

    /// The window of ``retryBurst``.
    public static let burstWindow: Duration = .milliseconds(10)

    /// The most histogram windows a storm reports.
    public static let maximumWindows = 100_000

    public static func run(policy: Policy, configuration: Configuration) -> OutageStorm {
        run(policy: policy, configuration: configuration, interleaved: false, parts: nil)
    }

    /// Separate clients are run in this many parts at once (one for
    /// every this many clients, up to ``maximumParts``).
    static let clientsPerPart = 25_000
    static let maximumParts = 8

    /// A storm; with `interleaved`, separate clients run together in time
    /// order as clients sharing state must, and `parts` sets how many
    /// parts separate clients run in (the same report either way, at a
    /// different cost).
    static func run(policy: Policy, configuration: Configuration, interleaved: Bool, parts: Int?) -> OutageStorm {
        let clients = max(configuration.clients, 0)
        let decider = RetryDecider(policy: policy)
        var generator = SplitMix64(seed: configuration.seed)
        // Every start is drawn before the first jitter, in client order.
        var arrivals = StormArrivals(clients: clients, spread: configuration.spread, using: &generator)
        var responder = OutageResponder(
            outage: configuration.outage, outageResponse: configuration.outageResponse, latency: configuration.latency)
        var tally = StormTally(outage: configuration.outage, window: configuration.window)
        // Separate clients need separate state only when the policy keeps
        // state; otherwise one decider is the same and costs nothing per
        // client.
        let deciders: SimulatedTraffic.Deciders =
            configuration.shared || !decider.keepsState ? .shared(decider) : .perRequest(decider)
        if configuration.shared && decider.keepsState || interleaved {
            // Clients that share a budget, breaker or cooldown affect each
            // other: their events run together, in time order.
            SimulatedTraffic.run(
                arrivals: &arrivals, responder: &responder, observer: &tally, deciders: deciders, using: &generator)
        } else {
            // Separate clients run one after another, in consecutive parts
            // at once when there are many.
            let parts = parts ?? min(max(clients / clientsPerPart, 1), maximumParts)
            if parts == 1 {
                SimulatedTraffic.runSeparately(
                    arrivals: &arrivals, responder: &responder, observer: &tally, deciders: deciders, using: &generator)
            } else {
                tally = runInParts(
                    arrivals.split(into: parts), responder: responder, tally: tally, deciders: deciders,
                    generator: generator)
            }
        }
        tally.finish()
        var configuration = configuration
        configuration.window = .nanoseconds(tally.windowNanoseconds)
        let peak = tally.load.max() ?? 0
        let peakSlot = tally.load.firstIndex(of: peak) ?? 0
        return OutageStorm(
            configuration: configuration, load: tally.load, totalRequests: tally.totalRequests, peak: peak,
            peakAt: .nanoseconds(Int64(peakSlot) * tally.windowNanoseconds), succeeded: tally.succeeded,
            failures: tally.failures, rejectedByCooldown: tally.rejectedByCooldown, finishedAt: tally.finishedAt,
            retryBurst: tally.retryBurst, outageRequests: tally.outageRequests, breakerPeriods: tally.breakerPeriods,
            hedges: tally.hedges, rateLimitWaits: tally.rateLimitWaits, rateLimitWaited: tally.rateLimitWaited)
    }

    /// Runs each stretch of separate clients on a thread of its own, then
    /// adds up their counts. Every part draws the same streams from a copy
    /// of `generator`, so every client does what it does in one run. Only
    /// the first part settles its retry burst as it goes: a later part's
    /// retries join the earlier parts' windows when they are added up.
    private static func runInParts(
        _ stretches: [StormArrivals], responder: OutageResponder, tally: StormTally,
        deciders: SimulatedTraffic.Deciders, generator: SplitMix64
    ) -> StormTally {
        let results = LockedValue([StormTally?](repeating: nil, count: stretches.count))
        DispatchQueue.concurrentPerform(iterations: stretches.count) { part in
            var arrivals = stretches[part]
            var responder = responder
            var generator = generator
            var counted = tally
            counted.settlesBursts = part == 0
            SimulatedTraffic.runSeparately(
                arrivals: &arrivals, responder: &responder, observer: &counted, deciders: deciders, using: &generator)
            results.withLock { $0[part] = counted }
        }
        let tallies = results.withLock { $0 }
        var total = tallies[0]!
        for part in tallies.dropFirst() { total.merge(part!) }
        return total
    }
}
