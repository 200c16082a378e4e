/// The measured send rate (botocore's `RateClocker`): responses are counted
/// in buckets of fixed width; when a response lands in a later bucket, the
/// count over the buckets since the last update becomes a rate, smoothed
/// into the measurement.
public struct SendRateMeter: Hashable, Sendable {
    public let smoothing: Double
    /// The bucket width, in nanoseconds (≥ 1).
    public let bucketWidth: Int64
    /// The smoothed rate, in responses per second.
    public private(set) var measuredRate: Double = 0
    private var count: Int64 = 0
    /// The start of the bucket the last update fell in, in nanoseconds
    /// since 1970.
    private var lastBucket: Int64

    /// Starts measuring at `start`. The first bucket starts at the whole
    /// second before it, as botocore's does.
    public init(smoothing: Double = 0.8, bucketWidth: Duration = .milliseconds(500), start: Timestamp) {
        self.smoothing = smoothing
        self.bucketWidth = max(1, bucketWidth.nanosecondsSaturated)
        lastBucket = Self.floor(start.nanosecondsSince1970, to: 1_000_000_000)
    }

    /// Counts a response at `now` and returns the measured rate.
    @discardableResult
    public mutating func record(at now: Timestamp) -> Double {
        let bucket = Self.floor(now.nanosecondsSince1970, to: bucketWidth)
        count = count &+ 1
        if bucket > lastBucket {
            // Exact in nanoseconds unless the times are absurdly far apart.
            let (difference, overflow) = bucket.subtractingReportingOverflow(lastBucket)
            let span = (overflow ? Double(bucket) - Double(lastBucket) : Double(difference)) / 1e9
            let current = Double(count) / span
            measuredRate = current * smoothing + measuredRate * (1 - smoothing)
            count = 0
            lastBucket = bucket
        }
        return measuredRate
    }

    /// `value` rounded down to a multiple of `width` (toward −∞),
    /// saturating at the lowest one.
    private static func floor(_ value: Int64, to width: Int64) -> Int64 {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: width)
        // With a remainder, |quotient| < Int64.max / 2: one less cannot overflow.
        let (floored, overflow) = (remainder < 0 ? quotient - 1 : quotient).multipliedReportingOverflow(by: width)
        return overflow ? .min : floored
    }
}
