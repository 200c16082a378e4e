/// The shared state of AWS adaptive mode (``AdaptiveRateLimit``): the CUBIC
/// rate, the measured send rate and the bucket that paces attempts, as
/// botocore's `ClientRateLimiter` combines them.
///
/// Every attempt asks ``admit(at:)`` before it is sent, and every response
/// is reported to ``record(throttled:at:)``. Until the first throttling
/// response the limiter is off and admitting costs one atomic load; after
/// it, a brief lock. Time is passed in; nothing here reads a clock or
/// allocates after initialization.
public final class AdaptiveRateLimiter: Sendable {
    public let configuration: AdaptiveRateLimit
    /// 1 once a throttling response has switched the limiter on.
    private let enabled: AtomicInt64
    private let state: LockedValue<State?>

    /// What the limiter says about an attempt about to be sent.
    public enum Decision: Hashable, Sendable {
        /// Send it now.
        case send
        /// Wait this long for the bucket, then send it (its token is
        /// reserved).
        case wait(Duration)
        /// The bucket cannot pay within `AdaptiveRateLimit.maximumWait`.
        case refuse
    }

    /// The limiter's numbers at one moment, for reports and tests.
    public struct Snapshot: Hashable, Sendable {
        public var enabled: Bool
        /// Attempts per second the bucket fills at.
        public var fillRate: Double
        /// The smoothed measured send rate.
        public var measuredRate: Double
        /// Tokens in the bucket (negative while attempts wait).
        public var balance: Double
        /// CUBIC's W, the rate at the last throttling response.
        public var lastMaxRate: Double
    }

    private struct State: Sendable {
        var cubic: CubicRateCalculator
        var meter: SendRateMeter
        var bucket: RateLimitingBucket
        var enabled = false

        init(configuration: AdaptiveRateLimit, start: Timestamp) {
            cubic = CubicRateCalculator(
                scaleConstant: configuration.scaleConstant, beta: configuration.beta, lastMaxRate: 0,
                lastThrottle: start)
            meter = SendRateMeter(
                smoothing: configuration.smoothing, bucketWidth: configuration.measurementInterval, start: start)
            bucket = RateLimitingBucket(maximumRate: 1, minimumRate: configuration.minimumRate, start: start)
        }
    }

    /// A limiter whose clock starts at `start` (botocore's client
    /// creation), or at the first attempt or response when `nil`.
    public init(configuration: AdaptiveRateLimit, start: Timestamp? = nil) {
        self.configuration = configuration
        enabled = AtomicInt64(0)
        state = LockedValue(start.map { State(configuration: configuration, start: $0) })
    }

    /// Whether a throttling response has switched the limiter on.
    public var isEnabled: Bool { enabled.load(ordering: .acquiring) != 0 }

    /// May an attempt be sent at `now`?
    @inlinable
    public func admit(at now: Timestamp) -> Decision {
        guard isEnabled else { return .send }
        return reserve(at: now)
    }

    @usableFromInline
    func reserve(at now: Timestamp) -> Decision {
        let maximumWait = configuration.maximumWait
        let configuration = configuration
        let wait: Duration? = state.withLock { state in
            if state == nil { state = State(configuration: configuration, start: now) }
            return state!.bucket.reserve(at: now, maximumWait: maximumWait)
        }
        guard let wait else { return .refuse }
        return wait == .zero ? .send : .wait(wait)
    }

    /// An attempt that waited for its token at `now` will not be sent:
    /// the token goes back.
    public func giveBack(at now: Timestamp) {
        state.withLock { state in state?.bucket.giveBack(at: now) }
    }

    /// A response to an attempt arrived at `now`; `throttled` when it was a
    /// throttling response. Returns the new fill rate.
    @discardableResult
    public func record(throttled: Bool, at now: Timestamp) -> Double {
        let configuration = configuration
        let (rate, switchedOn) = state.withLock { state in
            if state == nil { state = State(configuration: configuration, start: now) }
            let measured = state!.meter.record(at: now)
            let newRate: Double
            var switchedOn = false
            if throttled {
                // Once on, the bucket's own rate bounds what was being sent.
                let sending = state!.enabled ? min(measured, state!.bucket.fillRate) : measured
                newRate = state!.cubic.rateAfterThrottle(sendingAt: sending, at: now)
                switchedOn = !state!.enabled
                state!.enabled = true
            } else {
                newRate = state!.cubic.rateAfterSuccess(at: now)
            }
            state!.bucket.setMaximumRate(min(newRate, configuration.maximumRateScale * measured), at: now)
            return (state!.bucket.fillRate, switchedOn)
        }
        if switchedOn { enabled.store(1, ordering: .releasing) }
        return rate
    }

    /// A failure of `kind` arrived at `now`.
    @discardableResult
    public func record(failure kind: SDKError.Kind, at now: Timestamp) -> Double {
        record(throttled: configuration.isThrottling(kind), at: now)
    }

    /// The limiter's numbers now.
    public var snapshot: Snapshot {
        let enabled = isEnabled
        return state.withLock { state in
            Snapshot(
                enabled: enabled, fillRate: state?.bucket.fillRate ?? 1, measuredRate: state?.meter.measuredRate ?? 0,
                balance: state?.bucket.balance ?? 0, lastMaxRate: state?.cubic.lastMaxRate ?? 0)
        }
    }
}
