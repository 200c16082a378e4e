/// Attempts counted per window of time, from the recording's first
/// request on, holding only the windows that saw an attempt.
///
/// A recording's time span is whatever its timestamps say: two lines
/// decades apart would need billions of empty windows in a dense series.
/// Here memory follows the number of attempts counted, never the span,
/// and reports render the gaps without materialising them.
public struct LoadSeries: Sendable, Hashable {
    public let window: Duration
    private var counts: [Int64: Int] = [:]
    /// The busiest window's attempts.
    public private(set) var peak = 0
    /// Every attempt counted.
    public private(set) var total = 0
    /// The last window with an attempt, `nil` while empty.
    public private(set) var lastWindow: Int64?

    public init(window: Duration) {
        self.window = window
    }

    /// Windows held: those with at least one attempt.
    public var heldWindows: Int { counts.count }

    /// Windows from the first (window 0) to the last with an attempt, the
    /// empty ones included: what a dense series would hold.
    public var span: Int64 { lastWindow.map { $0 &+ 1 } ?? 0 }

    /// The window holding `time` since the first request (times before it
    /// count in window 0).
    package func windowIndex(of time: Duration) -> Int64 {
        max(time.nanosecondsSaturated, 0) / max(window.nanosecondsSaturated, 1)
    }

    /// Counts `count` attempts started at `time`.
    public mutating func add(at time: Duration, count: Int = 1) {
        guard count > 0 else { return }
        let index = windowIndex(of: time)
        let updated = (counts[index] ?? 0).addingReportingOverflow(count)
        let value = updated.overflow ? Int.max : updated.partialValue
        counts[index] = value
        peak = max(peak, value)
        let sum = total.addingReportingOverflow(count)
        total = sum.overflow ? Int.max : sum.partialValue
        lastWindow = max(lastWindow ?? index, index)
    }

    /// The attempts of window `index` (0 for an empty one).
    public subscript(index: Int64) -> Int { counts[index] ?? 0 }

    /// The non-empty windows in time order.
    public var windows: [(index: Int64, attempts: Int)] {
        counts.sorted { $0.key < $1.key }.map { (index: $0.key, attempts: $0.value) }
    }

    /// The sums of consecutive runs of `group` windows, `columns` of them
    /// from window 0: a chart's columns, built from the non-empty windows
    /// only.
    package func columns(_ columns: Int, group: Int64) -> [Int] {
        var sums = Array(repeating: 0, count: max(columns, 0))
        let group = max(group, 1)
        for (index, attempts) in counts {
            let column = index / group
            guard column < Int64(sums.count) else { continue }
            let sum = sums[Int(column)].addingReportingOverflow(attempts)
            sums[Int(column)] = sum.overflow ? Int.max : sum.partialValue
        }
        return sums
    }
}
