import RetryPolicyCore

/// Replays recorded requests under a policy on simulated time.
///
/// Every recorded request is an arrival of ``SimulatedTraffic``, the
/// driver outage storms run on, at its recorded start, under one shared
/// decider (so a budget, breaker or cooldown acts across all of them, in
/// time order). Its responder answers a request's first attempt with the
/// recorded outcome and a retry, landing later, with a seeded draw from
/// the recording's model at that time, and a tally counts.
///
/// It streams: a recorded request is read when simulated time comes
/// within one model bucket of it, buckets behind the current time are
/// dropped, and a finished request is forgotten.
public enum ReplayDriver {
    public struct Configuration: Sendable {
        /// Width of one model bucket.
        public var bucket: Duration
        /// Width of one window of the load histogram.
        public var window: Duration
        public var seed: UInt64

        public init(bucket: Duration = .seconds(1), window: Duration = .seconds(1), seed: UInt64 = 1) {
            self.bucket = bucket
            self.window = window
            self.seed = seed
        }
    }

    /// Replays every request `next` hands out (in order of start time)
    /// under `policy`; rethrows what `next` throws once the requests
    /// already started have ended.
    public static func run(
        policy: Policy, configuration: Configuration, next: @escaping () throws -> RecordedRequest?
    ) throws -> ReplayRun {
        guard let first = try next() else { return ReplayRun(policy: policy, window: configuration.window) }
        let context = ReplayContext(policy: policy, configuration: configuration, origin: first.start)
        var arrivals = RecordedArrivals(context: context, first: first, next: next)
        var responder = RecordedResponder(context: context, seed: configuration.seed)
        var tally = ReplayTally(context: context)
        var generator = SplitMix64(seed: configuration.seed)
        SimulatedTraffic.run(
            arrivals: &arrivals, responder: &responder, observer: &tally,
            deciders: .shared(RetryDecider(policy: policy)), using: &generator)
        if let failure = context.failure { throw failure }
        return context.run
    }
}
