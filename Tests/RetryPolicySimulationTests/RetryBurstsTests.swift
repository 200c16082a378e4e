import PropertyBased
import RetryPolicyCore
import Testing

@testable import RetryPolicySimulation

/// The retry burst counted from times in any order, settled as a caller
/// reaches later times, must be the largest count of a window slid over
/// the sorted times: over clustered, tied, sub-nanosecond and far-apart
/// times, handed over in groups that each start no earlier than the time
/// reached before them (as separate clients arrive).
@Suite("Retry bursts")
struct RetryBurstsTests {
    static let window = Duration.milliseconds(10)

    /// The largest number of times within `[t, t + window)` for any `t`.
    static func slid(_ times: [Duration]) -> Int {
        let sorted = times.sorted()
        var largest = 0
        var low = 0
        for high in sorted.indices {
            while sorted[high] - sorted[low] >= window { low += 1 }
            largest = max(largest, high - low + 1)
        }
        return largest
    }

    /// A time near `base`: on a window's edge, a whole number of
    /// nanoseconds, or anywhere to the attosecond.
    static func time(near base: Duration, _ generator: inout SplitMix64) -> Duration {
        switch generator.next() % 4 {
        case 0: return base + .milliseconds(10 * Int64(generator.next() % 4))
        case 1: return base + .nanoseconds(Int64(generator.next() % 30_000_000))
        case 2: return base + Duration(secondsComponent: 0, attosecondsComponent: Int64(generator.next() % 25_000_000_000_000_000))
        default: return base
        }
    }

    @Test("as many as a window slid over the sorted times, in any order of groups")
    func matchesSlidWindow() async {
        await propertyCheck(count: 400, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 0...60)) { seed, groups in
            var generator = SplitMix64(seed: seed)
            var bursts = RetryBursts(window: Self.window)
            var all: [Duration] = []
            var start = Duration.zero
            for _ in 0..<groups {
                // The next group starts at or after the last one, sometimes
                // far later (past the buckets kept close at hand).
                switch generator.next() % 6 {
                case 0: start += .seconds(Int64(generator.next() % 2_000))
                case 1: start += .milliseconds(Int64(generator.next() % 15))
                case 2: break
                default: start += .nanoseconds(Int64(generator.next() % 50_000_000))
                }
                bursts.reached(start)
                for _ in 0..<generator.next() % 12 {
                    // Some retries land far ahead, together: hours, or a
                    // year, after the start.
                    let base: Duration =
                        switch generator.next() % 8 {
                        case 0: max(start, .seconds(3_600 * Int64(1 + generator.next() % 3)))
                        case 1: max(start, .seconds(31_536_000))
                        default: start + .milliseconds(Int64(generator.next() % 60))
                        }
                    let time = Self.time(near: base, &generator)
                    bursts.add(time)
                    all.append(time)
                }
            }
            bursts.finish()
            #expect(bursts.largest == Self.slid(all), "\(all.count) retries")
        }
    }

    @Test("counted in parts of consecutive groups, only the first settling, then merged: as if counted as one")
    func mergedParts() async {
        await propertyCheck(count: 300, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...5)) { seed, parts in
            var generator = SplitMix64(seed: seed)
            var counts = (0..<parts).map { _ in RetryBursts(window: Self.window) }
            var all: [Duration] = []
            var start = Duration.zero
            for part in 0..<parts {
                for _ in 0..<generator.next() % 10 {
                    start += .nanoseconds(Int64(generator.next() % 8_000_000))
                    if part == 0 { counts[0].reached(start) }
                    for _ in 0..<generator.next() % 8 {
                        // A third land together far ahead, past the buckets
                        // kept close at hand.
                        let base: Duration =
                            generator.next() % 3 == 0
                            ? .seconds(5_000) : start + .milliseconds(Int64(generator.next() % 40))
                        let time = Self.time(near: base, &generator)
                        counts[part].add(time)
                        all.append(time)
                    }
                }
            }
            var merged = counts[0]
            for part in counts.dropFirst() { merged.merge(part) }
            merged.finish()
            #expect(merged.largest == Self.slid(all), "\(all.count) retries in \(parts) parts")
        }
    }

    @Test("retries on a window's edges and at one instant")
    func edges() {
        // [0, 10ms) holds three; the retry at 10ms is outside it.
        var first = RetryBursts(window: Self.window)
        for time: Duration in [.zero, .milliseconds(5), .nanoseconds(9_999_999), .milliseconds(10)] { first.add(time) }
        first.finish()
        #expect(first.largest == 3)

        var bursts = RetryBursts(window: Self.window)
        for time: Duration in [.zero, .milliseconds(5), .nanoseconds(9_999_999), .milliseconds(10)] { bursts.add(time) }
        bursts.reached(.milliseconds(15))
        for _ in 0..<3 { bursts.add(.milliseconds(19)) }
        bursts.finish()
        // [9.999999ms, 19.999999ms): 9.999999ms, 10ms and three at 19ms.
        #expect(bursts.largest == 5)

        var none = RetryBursts(window: Self.window)
        none.finish()
        #expect(none.largest == 0)
    }
}
