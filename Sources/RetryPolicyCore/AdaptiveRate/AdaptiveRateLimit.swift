/// The AWS SDKs' "adaptive" retry mode: a client-side rate limiter that,
/// once the service throttles, paces every attempt (first tries as well as
/// retries) at a rate CUBIC raises after successes and cuts after each
/// throttling response.
///
/// The numbers are botocore's (`botocore/retries/adaptive.py`,
/// `bucket.py`, `throttling.py`), which the AWS SDKs' shared test tables
/// also assume: CUBIC with C = 0.4 and β = 0.7, the send rate measured over
/// 0.5 s buckets and smoothed at 0.8, a fill rate of at least 0.5 per
/// second and a capacity of at least 1. The limiter stays off until the
/// first throttling response.
public struct AdaptiveRateLimit: Hashable, Sendable {
    /// CUBIC's β: the share of the send rate kept after a throttling
    /// response (0 < β < 1).
    public var beta: Double
    /// CUBIC's scale constant C: how fast the rate grows back (> 0).
    public var scaleConstant: Double
    /// The weight of the newest bucket in the smoothed send rate (0 < s ≤ 1).
    public var smoothing: Double
    /// The width of the buckets the send rate is measured over.
    public var measurementInterval: Duration
    /// The lowest fill rate, in attempts per second (> 0).
    public var minimumRate: Double
    /// How far above the measured send rate CUBIC may set the fill rate.
    public var maximumRateScale: Double
    /// The longest an attempt waits for the bucket; an attempt that would
    /// wait longer is refused instead. `nil`: attempts always wait, as the
    /// AWS SDKs do.
    public var maximumWait: Duration?
    /// The error kinds that count as throttling, such as `status_429`.
    public var throttlingErrors: Set<SDKError.Kind>

    public init(
        beta: Double = 0.7, scaleConstant: Double = 0.4, smoothing: Double = 0.8,
        measurementInterval: Duration = .milliseconds(500), minimumRate: Double = 0.5,
        maximumRateScale: Double = 2, maximumWait: Duration? = nil,
        throttlingErrors: Set<SDKError.Kind> = [.status429]
    ) {
        self.beta = beta
        self.scaleConstant = scaleConstant
        self.smoothing = smoothing
        self.measurementInterval = measurementInterval
        self.minimumRate = minimumRate
        self.maximumRateScale = maximumRateScale
        self.maximumWait = maximumWait
        self.throttlingErrors = throttlingErrors
    }

    /// botocore's adaptive mode.
    public static let aws = AdaptiveRateLimit()

    /// Whether a failure of `kind` is a throttling response.
    @inlinable
    public func isThrottling(_ kind: SDKError.Kind) -> Bool { throttlingErrors.contains(kind) }
}
