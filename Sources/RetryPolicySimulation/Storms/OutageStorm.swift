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

    private struct Event: Comparable {
        var time: Duration
        var client: Int
        static func < (lhs: Event, rhs: Event) -> Bool { (lhs.time, lhs.client) < (rhs.time, rhs.client) }
    }

    public static func run(policy: Policy, configuration: Configuration) -> OutageStorm {
        let clients = max(configuration.clients, 0)
        let sharedDecider = RetryDecider(policy: policy)
        // Separate clients need separate state only when the policy has
        // state (a budget or cooldowns); otherwise one decider is the same
        // and keeps a million-client storm small in memory.
        let stateful = policy.budget != nil || policy.breaker != nil || policy.retryAfter.cooldown != .off
        let shared = configuration.shared || !stateful
        var generator = SplitMix64(seed: configuration.seed)
        var queue = MinHeap<Event>()
        for client in 0..<clients {
            var start = Duration.zero
            if configuration.spread > .zero {
                start = .nanoseconds(Int64.random(in: 0...configuration.spread.nanosecondsSaturated, using: &generator))
            }
            queue.push(Event(time: start, client: client))
        }
        // Each client runs the request state machine the executor runs,
        // through the simulated driver `RequestTimeline` uses; the storm
        // only supplies the server's answers and the time. A client's
        // entry in the queue is valid while its time is the client's next
        // event (a hedged request's timer can move earlier or later).
        var requests: [SimulatedRequest?] = Array(repeating: nil, count: clients)
        var scheduled: [Duration?] = Array(repeating: nil, count: clients)
        var requestStarts: [Duration] = []
        var retryStarts: [Duration] = []
        var hedges = 0
        var succeeded = 0
        var failures: [StopReason: Int] = [:]
        var rejected = 0
        var finishedAt = Duration.zero
        var periods: [BreakerPeriod] = []
        // The shared breaker's changes, as the machines report them.
        func note(_ transition: CircuitBreakerTransition?, at time: Duration) {
            guard shared, let transition else { return }
            if !periods.isEmpty, periods[periods.count - 1].end == nil { periods[periods.count - 1].end = time }
            switch transition {
            case .opened: periods.append(BreakerPeriod(state: .open, start: time, end: nil))
            case .halfOpened: periods.append(BreakerPeriod(state: .halfOpen, start: time, end: nil))
            case .closed: break
            }
        }
        let origin = RequestTimeline.origin
        let outageResponse = configuration.outageResponse
        let recovered = ScriptedResponse(outcome: .status(200))
        var pendingStarts = Array(repeating: true, count: clients)
        while let event = queue.pop() {
            let client = event.client
            var action: RequestStateMachine.Action
            if pendingStarts[client] {
                pendingStarts[client] = false
                var request = SimulatedRequest(
                    machine: RequestStateMachine(
                        decider: shared ? sharedDecider : RetryDecider(policy: policy), keepsHistory: false,
                        concurrentAttempts: true),
                    startedAt: event.time, origin: origin)
                action = request.start()
                note(request.machine.breakerTransition, at: event.time)
                requests[client] = request
            } else {
                guard scheduled[client] == event.time, requests[client] != nil else { continue }
                action = requests[client]!.advance(using: &generator)
                note(requests[client]!.machine.breakerTransition, at: event.time)
            }
            let hedged = requests[client]!.machine.isHedged
            let finished = requests[client]!.perform(action) { start in
                requestStarts.append(start.at)
                if start.number > 1 { retryStarts.append(start.at) }
                if start.number > 1, hedged { hedges += 1 }
                let scripted = start.at < configuration.outage ? outageResponse : recovered
                return scripted.resolve(latency: configuration.latency, timeLimit: start.timeLimit)
            }
            switch finished {
            case .none:
                let next = requests[client]!.nextEvent!
                scheduled[client] = next
                queue.push(Event(time: next, client: client))
            case .succeed?:
                succeeded += 1
                finishedAt = max(finishedAt, event.time)
                requests[client] = nil
            case .fail(let failure)?:
                if requests[client]!.machine.rejectedByCooldown {
                    rejected += 1
                } else {
                    failures[failure.reason, default: 0] += 1
                }
                finishedAt = max(finishedAt, event.time)
                requests[client] = nil
            default:
                preconditionFailure("perform returns only the action that ends the request")
            }
        }
        // At most `maximumWindows` bars: a window too fine for the storm's
        // length is widened tenfold until it fits.
        var configuration = configuration
        var windowNanos = max(configuration.window.nanosecondsSaturated, 1)
        let lastStart = requestStarts.max()?.nanosecondsSaturated ?? 0
        while lastStart / windowNanos >= Int64(maximumWindows) {
            windowNanos = windowNanos > Int64.max / 10 ? Int64.max : windowNanos * 10
        }
        configuration.window = .nanoseconds(windowNanos)
        var load: [Int] = []
        for start in requestStarts {
            let slot = Int(start.nanosecondsSaturated / windowNanos)
            if slot >= load.count { load.append(contentsOf: repeatElement(0, count: slot - load.count + 1)) }
            load[slot] += 1
        }
        let peak = load.max() ?? 0
        retryStarts.sort()
        var burst = 0
        var low = 0
        for high in retryStarts.indices {
            while retryStarts[high] - retryStarts[low] >= burstWindow { low += 1 }
            burst = max(burst, high - low + 1)
        }
        let peakSlot = load.firstIndex(of: peak) ?? 0
        return OutageStorm(
            configuration: configuration, load: load, totalRequests: requestStarts.count, peak: peak,
            peakAt: .nanoseconds(Int64(peakSlot) * windowNanos), succeeded: succeeded, failures: failures,
            rejectedByCooldown: rejected, finishedAt: finishedAt, retryBurst: burst,
            outageRequests: requestStarts.lazy.filter { $0 < configuration.outage }.count, breakerPeriods: periods,
            hedges: hedges)
    }
}
