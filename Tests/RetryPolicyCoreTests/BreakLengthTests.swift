import PropertyBased
import RetryPolicyCore
import Testing

/// The break's length in closed form, against the stepwise definition it
/// replaced, and at the extremes a peer sharing the breaker can send.
@Suite("Circuit breaker: the break's length in closed form")
struct BreakLengthTests {
    /// The definition before the closed form: one saturating
    /// multiplication per opening, stopping at the cap.
    static func stepwise(_ configuration: CircuitBreakerConfiguration, opening openings: Int) -> Duration {
        guard configuration.breakMultiplier != 1, openings > 1 else { return configuration.breakDuration }
        let cap = configuration.maxBreak ?? .seconds(86_400 * 100)
        var length = configuration.breakDuration
        for _ in 1..<openings {
            if length >= cap { return cap }
            let nanoseconds = Double(length.nanosecondsSaturated) * configuration.breakMultiplier
            length = !(nanoseconds < 9.2e18) ? .nanoseconds(Int64.max) : .nanoseconds(Int64(max(0, nanoseconds)))
        }
        return min(length, cap)
    }

    static func configuration(breakMilliseconds: Int, multiplier: Double, maxBreakSeconds: Int?) -> CircuitBreakerConfiguration {
        CircuitBreakerConfiguration(
            breakDuration: .milliseconds(breakMilliseconds), breakMultiplier: multiplier,
            maxBreak: maxBreakSeconds.map { .seconds($0) })
    }

    @Test("Whole multipliers: the closed form equals the stepwise definition exactly, for the first 80 openings")
    func wholeMultipliersAgree() async {
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 0...600_000), Gen.int(in: 1...10), Gen.int(in: 1...8_640_000).optional, Gen.int(in: 1...80)
        ) { breakMilliseconds, multiplier, maxBreakSeconds, openings in
            let configuration = Self.configuration(
                breakMilliseconds: breakMilliseconds, multiplier: Double(multiplier), maxBreakSeconds: maxBreakSeconds)
            #expect(configuration.breakDuration(opening: openings) == Self.stepwise(configuration, opening: openings))
        }
    }

    @Test("Fractional multipliers: the closed form is the stepwise product up to its rounding (under a nanosecond a step)")
    func fractionalMultipliersAgree() async {
        await propertyCheck(
            count: 300,
            input: Gen.int(in: 1...600_000), Gen.int(in: 101...400), Gen.int(in: 1...8_640_000).optional, Gen.int(in: 1...40)
        ) { breakMilliseconds, hundredths, maxBreakSeconds, openings in
            let multiplier = Double(hundredths) / 100
            let configuration = Self.configuration(
                breakMilliseconds: breakMilliseconds, multiplier: multiplier, maxBreakSeconds: maxBreakSeconds)
            let closed = configuration.breakDuration(opening: openings).nanosecondsSaturated
            let stepwise = Self.stepwise(configuration, opening: openings).nanosecondsSaturated
            // Each step of the stepwise form drops under a nanosecond, which
            // the later steps multiply: at most (m^n - 1)/(m - 1) in all,
            // plus the closed form's own rounding.
            var bound = 1.0
            var power = 1.0
            for _ in 0..<openings {
                bound += power
                power *= multiplier
            }
            let difference = closed > stepwise ? closed - stepwise : stepwise - closed
            #expect(Double(difference) <= bound + Double(max(closed, stepwise)) * 1e-12, "\(closed) vs \(stepwise)")
            #expect(closed >= 0)
            #expect(closed <= (configuration.maxBreak ?? .seconds(86_400 * 100)).nanosecondsSaturated)
        }
    }

    @Test(
        "Any number of openings, up to Int.max, gives a length at once, within the cap",
        arguments: [Int.max, Int.max - 1, 1 << 62, 1_000_000_000, 64, 2, 1, 0, -1, Int.min])
    func extremeOpenings(openings: Int) {
        let doubling = CircuitBreakerConfiguration(breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300))
        let expected: Duration = openings >= 6 ? .seconds(300) : openings <= 1 ? .seconds(10) : .seconds(10 * (1 << (openings - 1)))
        #expect(doubling.breakDuration(opening: openings) == expected)
        // Growing by a hair: the stepwise form would have looped a
        // billion times and more under the breaker's lock.
        let creeping = CircuitBreakerConfiguration(breakDuration: .seconds(1), breakMultiplier: 1.000_000_001, maxBreak: nil)
        #expect(creeping.breakDuration(opening: openings) <= .seconds(86_400 * 100))
        // A zero break never grows (and 0 × ∞ is no NaN).
        let zero = CircuitBreakerConfiguration(breakDuration: .zero, breakMultiplier: 1e300, maxBreak: .seconds(60))
        #expect(zero.breakDuration(opening: openings) == .zero)
        // Shrinking and absurd multipliers stay within 0...cap.
        for multiplier in [0.5, 0, -2, .infinity, .nan, 1e308] {
            let odd = CircuitBreakerConfiguration(breakDuration: .seconds(10), breakMultiplier: multiplier, maxBreak: .seconds(60))
            let length = odd.breakDuration(opening: openings)
            #expect(length >= .zero && length <= .seconds(60), "multiplier \(multiplier): \(length)")
        }
    }

    @Test("The longest break is the cap, or the first break when it does not grow")
    func longestBreak() {
        #expect(CircuitBreakerConfiguration(breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300)).longestBreak == .seconds(300))
        #expect(CircuitBreakerConfiguration(breakDuration: .seconds(10)).longestBreak == .seconds(10))
        #expect(CircuitBreakerConfiguration(breakDuration: .seconds(10), breakMultiplier: 3).longestBreak == .seconds(86_400 * 100))
    }

    @Test("A peer's count of Int.max openings is adopted without a trap; the next opening counts on from the bound")
    func adoptedOpeningsNeverTrap() {
        let configuration = CircuitBreakerConfiguration(
            minimumCalls: 1, consecutiveFailures: 1, breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300),
            halfOpenProbes: 1)
        var machine = CircuitBreakerStateMachine(configuration: configuration)
        let t0 = Timestamp(secondsSince1970: 1_700_000_000)
        // A year-long break from a peer is cut to this breaker's longest.
        let adopted = machine.adoptOpening(until: Timestamp(nanosecondsSince1970: .max), openings: .max, at: t0)
        #expect(adopted == .opened(until: t0 + .seconds(300), breakDuration: .seconds(300), reason: .shared))
        #expect(machine.consecutiveOpenings == CircuitBreakerConfiguration.maximumOpenings)
        // Half-open after the break; the probe fails: one more opening.
        guard case .proceed(let probe?) = machine.admit(at: t0 + .seconds(300)).0 else {
            Issue.record("the probe was rejected")
            return
        }
        let reopened = machine.record(failure: true, ticket: probe, at: t0 + .seconds(300))
        #expect(reopened == .opened(until: t0 + .seconds(600), breakDuration: .seconds(300), reason: .probeFailed))
        #expect(machine.consecutiveOpenings == CircuitBreakerConfiguration.maximumOpenings)
        // Negative counts are no counts.
        var other = CircuitBreakerStateMachine(configuration: configuration)
        _ = other.adoptOpening(until: t0 + .seconds(5), openings: .min, at: t0)
        #expect(other.consecutiveOpenings == 0)
    }
}
