/// How long to wait before retry *k* when the server gave no delay.
///
/// Exponential (the default): `base(k) = min(initial × multiplier^(k-1), max)`;
/// linear: `base(k) = min(initial + step × (k-1), max)`. Jitter then spreads
/// the delay so that clients that failed together do not retry together.
public struct Backoff: Hashable, Sendable {
    /// How the base delay grows from one retry to the next.
    public enum Shape: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// `initial × multiplier^(k-1)`; multiplier 1 is a constant delay.
        case exponential
        /// `initial + step × (k-1)`; step 0 is a constant delay.
        case linear

        public var description: String { rawValue }
    }

    /// How the base delay is randomised.
    public enum Jitter: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Exactly the base delay. Synchronises clients; lint warns.
        case none
        /// Uniform in `[0, base]` (AWS "full jitter").
        case full
        /// Uniform in `[base/2, base]`.
        case equal
        /// Uniform in `[initial, min(max, 3 × previous delay)]`.
        case decorrelated

        public var description: String { rawValue }
    }

    /// How the base delay grows from one retry to the next. Each shape
    /// carries only its own parameter, so a linear backoff with a
    /// multiplier cannot be built.
    public enum Growth: Hashable, Sendable {
        /// `initial × multiplier^(k-1)`; multiplier 1 is a constant delay.
        case exponential(multiplier: Double)
        /// `initial + step × (k-1)`; step 0 is a constant delay.
        case linear(step: Duration)
    }

    public var initial: Duration
    public var max: Duration
    public var growth: Growth
    public var jitter: Jitter
    public var location: SourceLocation?

    /// The shape of ``growth``.
    public var shape: Shape {
        switch growth {
        case .exponential: .exponential
        case .linear: .linear
        }
    }

    /// An exponential backoff's multiplier (1 for a linear one, which
    /// does not multiply).
    public var multiplier: Double {
        if case .exponential(let multiplier) = growth { return multiplier }
        return 1
    }

    /// What a linear backoff adds per retry (zero for an exponential one).
    public var step: Duration {
        if case .linear(let step) = growth { return step }
        return .zero
    }

    /// An exponential backoff: `min(initial × multiplier^(k-1), max)`
    /// before retry `k`.
    public init(
        initial: Duration,
        max: Duration,
        multiplier: Double = 2,
        jitter: Jitter = .full,
        location: SourceLocation? = nil
    ) {
        self.init(initial: initial, max: max, growth: .exponential(multiplier: multiplier), jitter: jitter, location: location)
    }

    public init(initial: Duration, max: Duration, growth: Growth, jitter: Jitter = .full, location: SourceLocation? = nil) {
        self.initial = initial
        self.max = max
        self.growth = growth
        self.jitter = jitter
        self.location = location
    }

    /// A linear backoff: `min(initial + step × (k-1), max)` before retry `k`.
    public static func linear(
        initial: Duration, step: Duration, max: Duration, jitter: Jitter = .full, location: SourceLocation? = nil
    ) -> Backoff {
        Backoff(initial: initial, max: max, growth: .linear(step: step), jitter: jitter, location: location)
    }

    /// No waiting at all.
    public static let immediate = Backoff(initial: .zero, max: .zero, multiplier: 1, jitter: .none)

    /// The un-jittered delay before retry `k` (k = 1 is the first retry).
    /// Computed in floating point and clamped before conversion, so large
    /// `k` or multipliers saturate at `max` instead of overflowing.
    public func base(forRetry k: Int) -> Duration {
        let initialNanos = Double(initial.nanosecondsSaturated)
        let maxNanos = Double(max.nanosecondsSaturated)
        let exponent = Double(Swift.max(k, 1) - 1)
        var value = initialNanos
        switch growth {
        case .exponential(let multiplier):
            if multiplier != 1 && exponent > 0 {
                value = initialNanos * pow(multiplier, exponent)
            }
        case .linear(let step):
            value = initialNanos + Double(step.nanosecondsSaturated) * exponent
        }
        if !(value <= maxNanos) { value = maxNanos }  // also catches NaN and +inf
        if value < 0 { value = 0 }
        return .nanoseconds(Int64(value))
    }

    /// The range jitter can produce for retry `k`.
    ///
    /// - Parameters:
    ///   - k: the retry, 1 for the first (after attempt 1).
    ///   - previousDelay: the delay actually used before the
    ///     previous retry; only decorrelated jitter uses it, and the first
    ///     retry treats it as `initial`.
    public func bounds(forRetry k: Int, previousDelay: Duration?) -> ClosedRange<Duration> {
        switch jitter {
        case .none:
            let base = base(forRetry: k)
            return base...base
        case .full:
            return .zero...base(forRetry: k)
        case .equal:
            let base = base(forRetry: k)
            return (base / 2)...base
        case .decorrelated:
            let lower = Swift.min(initial, max)
            let previous = previousDelay ?? initial
            let tripled = Duration.nanoseconds(Self.saturatingTriple(previous.nanosecondsSaturated))
            let upper = Swift.max(lower, Swift.min(max, tripled))
            return lower...upper
        }
    }

    /// A jittered delay for retry `k`, drawn from `generator`.
    public func delay<G: RandomNumberGenerator>(
        forRetry k: Int,
        previousDelay: Duration?,
        using generator: inout G
    ) -> Duration {
        let range = bounds(forRetry: k, previousDelay: previousDelay)
        let low = range.lowerBound.nanosecondsSaturated
        let high = range.upperBound.nanosecondsSaturated
        if low >= high { return range.lowerBound }
        return .nanoseconds(Int64.random(in: low...high, using: &generator))
    }

    private static func saturatingTriple(_ value: Int64) -> Int64 {
        let (result, overflow) = value.multipliedReportingOverflow(by: 3)
        return overflow ? .max : result
    }
}

/// `x^y` for the non-negative exponents backoff needs, without Foundation.
@usableFromInline
func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(Swift.min(exponent, 4096))
    var factor = base
    while remaining > 0 {
        if remaining & 1 == 1 { result *= factor }
        factor *= factor
        remaining >>= 1
        if result.isInfinite { return result }
    }
    return result
}
