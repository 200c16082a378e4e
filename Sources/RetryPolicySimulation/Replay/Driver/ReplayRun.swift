import RetryPolicyCore

/// What one policy did to a recording: the load it sent, how requests
/// ended, what its waits added, and what its budget, breaker and cooldown
/// did. The recording's own numbers sit beside them, under the same
/// policy's view of success.
public struct ReplayRun: Sendable {
    public var policy: Policy
    /// Requests replayed (one per recorded request).
    public var requests = 0
    /// Attempts the policy sent to the upstream (hedged copies included).
    public var attempts = 0
    public var succeeded = 0
    /// Requests that failed, by stop reason (refusals by a cooldown or
    /// breaker before any attempt are counted here too, and in
    /// `rejectedByCooldown` / `rejectedByBreaker`).
    public var failures: [StopReason: Int] = [:]
    public var rejectedByCooldown = 0
    /// Requests a cooldown held back before their first attempt.
    public var heldByCooldown = 0
    /// Each request's time spent waiting between attempts.
    var waitHistogram = WaitHistogram()
    /// Attempts started per ``window``, from the recording's first request.
    public var load: LoadSeries
    public var window: Duration
    /// When a shared breaker was open or half-open.
    public var breakerPeriods: [OutageStorm.BreakerPeriod] = []
    /// When the last request ended, since the first one started.
    public var finishedAt: Duration = .zero

    /// The recording: its requests' upstream attempts per window, how many
    /// of its requests ended in success (under this policy's rules), and
    /// the attempts it shows.
    public var recordedLoad: LoadSeries
    public var recordedAttempts = 0
    public var recordedSucceeded = 0
    /// The first and last recorded request's start.
    public var firstStart: Timestamp?
    public var lastStart: Timestamp?
    /// The most active requests at once, and model buckets held at once:
    /// what bounds the replay's memory.
    public var peakActiveRequests = 0
    public var peakHeldBuckets = 0

    public init(policy: Policy, window: Duration) {
        self.policy = policy
        self.window = window
        load = LoadSeries(window: window)
        recordedLoad = LoadSeries(window: window)
    }

    public var failed: Int { failures.values.reduce(0, +) }
    /// Attempts per request.
    public var amplification: Double { requests == 0 ? 0 : Double(attempts) / Double(requests) }
    public var recordedAmplification: Double { requests == 0 ? 0 : Double(recordedAttempts) / Double(requests) }
    /// Share of requests that succeeded, in percent.
    public var successRate: Double { requests == 0 ? 0 : Double(succeeded) * 100 / Double(requests) }
    public var recordedSuccessRate: Double { requests == 0 ? 0 : Double(recordedSucceeded) * 100 / Double(requests) }
    /// The busiest window's attempts per second.
    public var peakPerSecond: Double { Self.perSecond(load.peak, window) }
    public var recordedPeakPerSecond: Double { Self.perSecond(recordedLoad.peak, window) }
    public func waitPercentile(_ fraction: Double) -> Duration { waitHistogram.percentile(fraction) }
    /// Requests the retry budget stopped.
    public var budgetStops: Int { failures[.budgetExhausted] ?? 0 }
    /// Requests the circuit breaker refused an attempt (open, or half-open
    /// with every probe out).
    public var rejectedByBreaker: Int { failures[.circuitOpen] ?? 0 }
    public var breakerOpenings: Int { breakerPeriods.filter { $0.state == .open }.count }

    static func perSecond(_ count: Int, _ window: Duration) -> Double {
        let seconds = Double(window.nanosecondsSaturated) / 1e9
        return seconds > 0 ? Double(count) / seconds : 0
    }
}
