/// CUBIC congestion control applied to a request rate (RFC 8312, as
/// botocore's `CubicCalculator` applies it): after a throttling response at
/// rate W the rate drops to β·W, then follows
/// `C·(t − K)³ + W` with `K = ∛(W·(1 − β) / C)`, back at W after K seconds
/// and growing past it.
public struct CubicRateCalculator: Hashable, Sendable {
    public let scaleConstant: Double
    public let beta: Double
    /// W: the rate at the last throttling response.
    public private(set) var lastMaxRate: Double
    /// When the last throttling response arrived.
    public private(set) var lastThrottle: Timestamp
    /// K, in seconds: when the curve is back at ``lastMaxRate``.
    public private(set) var zeroPoint: Double

    public init(scaleConstant: Double = 0.4, beta: Double = 0.7, lastMaxRate: Double, lastThrottle: Timestamp) {
        self.scaleConstant = scaleConstant
        self.beta = beta
        self.lastMaxRate = lastMaxRate
        self.lastThrottle = lastThrottle
        self.zeroPoint = 0
        zeroPoint = Self.zeroPoint(lastMaxRate: lastMaxRate, scaleConstant: scaleConstant, beta: beta)
    }

    /// The rate CUBIC allows at `now`, after a success.
    public func rateAfterSuccess(at now: Timestamp) -> Double {
        let elapsed = now.duration(since: lastThrottle).secondsAsDouble
        let offset = elapsed - zeroPoint
        return scaleConstant * offset * offset * offset + lastMaxRate
    }

    /// A throttling response at `now` while sending at `rate`: the new
    /// curve starts there, and the allowed rate drops to β·`rate`.
    public mutating func rateAfterThrottle(sendingAt rate: Double, at now: Timestamp) -> Double {
        lastMaxRate = rate
        zeroPoint = Self.zeroPoint(lastMaxRate: rate, scaleConstant: scaleConstant, beta: beta)
        lastThrottle = now
        return rate * beta
    }

    static func zeroPoint(lastMaxRate: Double, scaleConstant: Double, beta: Double) -> Double {
        cubeRoot(lastMaxRate * (1 - beta) / scaleConstant)
    }

    /// ∛x without the C library (the core imports none for arithmetic):
    /// Newton's method from a power of two within a factor of four of the
    /// root, a fixed number of steps.
    static func cubeRoot(_ x: Double) -> Double {
        guard x.isFinite, x != 0 else { return x }
        let magnitude = x.magnitude
        var root = Double(sign: .plus, exponent: magnitude.exponent / 3, significand: 1)
        for _ in 0..<12 {
            root = (2 * root + magnitude / (root * root)) / 3
        }
        return x < 0 ? -root : root
    }
}

extension Duration {
    /// Seconds as a `Double` (a rate's time base), saturating like
    /// `nanosecondsSaturated`.
    @inlinable
    package var secondsAsDouble: Double { Double(nanosecondsSaturated) / 1e9 }

    /// `seconds` as a duration, saturating at about 292 years; 0 for
    /// negative or NaN input.
    package static func saturating(seconds: Double) -> Duration {
        let nanoseconds = seconds * 1e9
        if !(nanoseconds > 0) { return .zero }
        if !(nanoseconds < 9.2e18) { return .nanoseconds(Int64.max) }
        return .nanoseconds(Int64(nanoseconds.rounded()))
    }
}
