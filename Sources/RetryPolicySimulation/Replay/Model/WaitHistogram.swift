/// Durations counted in logarithmic buckets (about 1.5 % wide), so that
/// percentiles of a million requests take a few kilobytes: 64 buckets per
/// power of two of microseconds.
struct WaitHistogram: Sendable {
    private var counts: [Int: Int] = [:]
    private(set) var total = 0
    private(set) var zeros = 0

    mutating func add(_ duration: Duration) {
        total += 1
        let micros = duration.nanosecondsSaturated / 1000
        guard micros > 0 else {
            zeros += 1
            return
        }
        counts[Self.bucket(micros), default: 0] += 1
    }

    private static let steps = 64

    private static func bucket(_ micros: Int64) -> Int {
        let exponent = 63 - micros.leadingZeroBitCount
        let base = Int64(1) << exponent
        let fraction = Double(micros - base) / Double(base)
        return exponent * steps + Int(fraction * Double(steps))
    }

    /// The bucket's middle, in microseconds.
    private static func value(_ bucket: Int) -> Int64 {
        let exponent = bucket / steps
        let step = bucket % steps
        let base = Double(Int64(1) << exponent)
        return Int64((base * (1 + (Double(step) + 0.5) / Double(steps))).rounded())
    }

    /// The `fraction` percentile (0.5 for the median); zero without values.
    func percentile(_ fraction: Double) -> Duration {
        guard total > 0 else { return .zero }
        let rank = max(1, Int((fraction * Double(total)).rounded(.up)))
        if rank <= zeros { return .zero }
        var seen = zeros
        for key in counts.keys.sorted() {
            seen += counts[key]!
            if seen >= rank { return .microseconds(Self.value(key)) }
        }
        return .zero
    }
}
