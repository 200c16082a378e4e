#if Postgres  // the trait; without it this module is empty
import NIOCore

/// Durations as the driver and the statements take them.
extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? .max : sum
    }

    var timeAmount: TimeAmount { .nanoseconds(nanosecondsClamped) }

    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

#endif
