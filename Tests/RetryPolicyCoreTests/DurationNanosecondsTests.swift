import RetryPolicyCore
import Testing

@Suite struct DurationNanosecondsTests {
    /// The reference: whole seconds and attoseconds, as `components` gives
    /// them, saturating.
    static func reference(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? Int64.min : Int64.max }
        return sum
    }

    @Test("nanosecondsSaturated agrees with components on both sides of the 64-bit attosecond range and of 2^63 nanoseconds")
    func agreesWithComponents() {
        var durations: [Duration] = [
            .zero, .nanoseconds(1), .nanoseconds(-1), .nanoseconds(999_999_999), .seconds(1), .seconds(-1),
            .seconds(9), .seconds(-9), .seconds(10), .seconds(-10), .seconds(60), .seconds(Int64.max),
            .seconds(Int64.min), .nanoseconds(Int64.max), .nanoseconds(Int64.min),
            Duration(secondsComponent: 0, attosecondsComponent: 1),
            Duration(secondsComponent: 0, attosecondsComponent: -1),
            Duration(secondsComponent: 9, attosecondsComponent: 223_372_036_854_775_807),
            Duration(secondsComponent: 9, attosecondsComponent: 223_372_036_854_775_808),
            Duration(secondsComponent: -9, attosecondsComponent: -223_372_036_854_775_808),
            Duration(secondsComponent: -9, attosecondsComponent: -223_372_036_854_775_809),
            // About 292 years: where nanoseconds stop fitting in 63 bits.
            .seconds(9_223_372_036), .seconds(9_223_372_037), .nanoseconds(Int64.max) + .nanoseconds(1),
            Duration(_high: 499_999_999, low: .max), Duration(_high: 500_000_000, low: 0),
        ]
        var generator = SplitMix64(seed: 7)
        for _ in 0..<10_000 {
            let seconds = Int64.random(in: -20...20, using: &generator)
            let attoseconds = Int64.random(in: -999_999_999_999_999_999...999_999_999_999_999_999, using: &generator)
            durations.append(Duration(secondsComponent: seconds, attosecondsComponent: attoseconds))
            let far = Int64.random(in: -20_000_000_000...20_000_000_000, using: &generator)
            durations.append(Duration(secondsComponent: far, attosecondsComponent: attoseconds))
        }
        for duration in durations {
            #expect(duration.nanosecondsSaturated == Self.reference(duration), "\(duration)")
        }
    }
}
