import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

/// A server controls `Retry-After`, so a broken or hostile one must never
/// make a client wait past the policy's cap, nor crash it, nor slip past
/// the cap by overflowing. These properties throw garbage, negative,
/// overflowing, non-ASCII and far-away-date values at the parser and the
/// decider, at any wall-clock time.
@Suite("Hostile Retry-After values")
struct HostileRetryAfterTests {
    static let cap = TestPolicies.hostileCap
    static let backoffMax = TestPolicies.hostileBackoffMax

    /// Values seen from broken servers and fuzzers, and the edges of every
    /// number format.
    static let hostileValues: [String] = [
        "", " ", "-1", "-0", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
        "100000000000000000000", "18446744073709551616", "999999999999999999", "1000000001", "1000000000",
        "1e9", "0x10", "+5", "5.5", "5 ", "\t5\t", "5s", "٣", "５", "三", "🕐", "\u{0}", "5\u{0}", "\u{FEFF}5",
        "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "Sat, 99 Dec 9999 99:99:99 GMT", "Wed, 31 Feb 2024 23:59:60 GMT", "Fri, 31 Dec 9999 23:59:59 UTC",
        "Ünïcödé, 01 Jän 2024 00:00:00 GMT", String(repeating: "9", count: 10_000),
        String(repeating: "Mon, ", count: 1000),
    ]

    /// Wall-clock times from the start of time to its end.
    static let extremeNows: [Int64] = [.min, .min + 1, -1, 0, 1, 1_700_000_000_000_000_000, .max - 1, .max]

    /// One hostile header value from a selector and raw material.
    static func value(kind: Int, number: Int64, text: String, year: Int) -> String {
        switch kind {
        case 0: return "\(number)"
        case 1: return hostileValues[Int(number.magnitude % UInt64(hostileValues.count))]
        case 2: return text
        case 3:
            let day = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][Int(number.magnitude % 7)]
            let paddedYear = String(repeating: "0", count: max(0, 4 - "\(year)".count)) + "\(year)"
            return "\(day), 01 Jan \(paddedYear) 00:00:00 GMT"
        default: return "\(number)\(text)"
        }
    }

    static func policy(aboveCap: RetryAfterPolicy.AboveCap, combine: RetryAfterPolicy.Combine) -> Policy {
        TestPolicies.hostile(attempts: 5, statuses: [429, 503], aboveCap: aboveCap, combine: combine)
    }

    @Test("Parsing any value in any format gives nil or a non-negative delay")
    func parsingNeverTrapsOrGoesNegative() async {
        await propertyCheck(
            count: 2000,
            input: Gen.int(in: 0...4), Gen.int64(), Gen<Character>.latin1.string(of: 0...40), Gen.int(in: 0...9999),
            Gen.int64()
        ) { kind, number, text, year, nowNanos in
            let text = Self.value(kind: kind, number: number, text: text, year: year)
            let now = Timestamp(nanosecondsSince1970: nowNanos)
            for format in RetryAfterPolicy.Header.Format.allCases {
                for when in [now, nil] {
                    if let delay = RetryAfterValue.parse(text, format: format, now: when) {
                        #expect(delay >= .zero, "\(format) '\(text)' at \(now) gave \(delay)")
                        #expect(delay <= RetryAfterValue.maximumDelay, "\(format) '\(text)' at \(now) gave \(delay)")
                    }
                }
            }
        }
    }

    @Test("No hostile value makes the decider wait past the cap", arguments: RetryAfterPolicy.AboveCap.allCases)
    func deciderNeverWaitsPastTheCap(aboveCap: RetryAfterPolicy.AboveCap) async {
        let policies = RetryAfterPolicy.Combine.allCases.map { Self.policy(aboveCap: aboveCap, combine: $0) }
        await propertyCheck(
            count: 1000,
            input: Gen.int(in: 0...4), Gen.int64(), Gen<Character>.latin1.string(of: 0...40), Gen.int(in: 0...9999),
            Gen.int(in: 0..<HostileRetryAfterTests.extremeNows.count), Gen.int(in: 0...2)
        ) { kind, number, text, year, nowIndex, headerIndex in
            let value = Self.value(kind: kind, number: number, text: text, year: year)
            let header = ["Retry-After", "retry-after-ms", "X-RateLimit-Reset"][headerIndex]
            let now = Timestamp(nanosecondsSince1970: Self.extremeNows[nowIndex] &+ number % 1_000_000)
            for policy in policies {
                let decider = RetryDecider(policy: policy)
                var generator = SplitMix64(seed: UInt64(bitPattern: number))
                for attempt in 1...5 {
                    let input = DecisionInput(
                        outcome: .response(status: 429, headers: [header: value]), attempt: attempt, now: now)
                    let decision = decider.decide(input, using: &generator)
                    if let delay = decision.delay {
                        #expect(delay >= .zero && delay <= max(Self.cap, Self.backoffMax),
                                "\(aboveCap)/\(policy.retryAfter.combine) \(header): '\(value)' at \(now) waits \(delay)")
                        if aboveCap == .ignore {
                            #expect(delay <= Self.backoffMax || decision.serverDirected)
                        }
                    }
                    if aboveCap == .stop, decision.stopReason == .retryAfterTooLong {
                        #expect((decision.error?.retryAfter ?? .zero) > Self.cap)
                    }
                    if case .wait(let remaining) = decider.admit(now: now) {
                        #expect(remaining > .zero && remaining <= Self.cap, "cooldown of \(remaining) for '\(value)'")
                    }
                }
            }
        }
    }

    @Test("Fixed hostile values at extreme clocks neither trap nor exceed the cap")
    func fixedHostileValuesAtExtremeClocks() {
        for aboveCap in RetryAfterPolicy.AboveCap.allCases {
            for combine in RetryAfterPolicy.Combine.allCases {
                let policy = Self.policy(aboveCap: aboveCap, combine: combine)
                for nanos in Self.extremeNows {
                    let decider = RetryDecider(policy: policy)
                    let now = Timestamp(nanosecondsSince1970: nanos)
                    var generator = SplitMix64(seed: 9)
                    for value in Self.hostileValues {
                        for header in ["Retry-After", "retry-after-ms", "X-RateLimit-Reset"] {
                            let input = DecisionInput(outcome: .response(status: 503, headers: [header: value]), now: now)
                            let decision = decider.decide(input, using: &generator)
                            #expect((decision.delay ?? .zero) <= Self.cap, "'\(value)' at \(nanos)")
                            #expect((decision.delay ?? .zero) >= .zero)
                        }
                    }
                    if case .wait(let remaining) = decider.admit(now: now) { #expect(remaining <= Self.cap) }
                }
            }
        }
    }

    @Test("A date beyond the timestamp range saturates to the maximum; a far-past date asks for no wait")
    func farDates() {
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        #expect(RetryAfterValue.parse("Fri, 31 Dec 9999 23:59:59 GMT", format: .http, now: now) == RetryAfterValue.maximumDelay)
        #expect(RetryAfterValue.parse("Mon, 01 Jan 0001 00:00:00 GMT", format: .http, now: now) == .zero)
        #expect(RetryAfterValue.parse("100000000000000000000", format: .http, now: now) == RetryAfterValue.maximumDelay)
        #expect(RetryAfterValue.parse("-1", format: .http, now: now) == nil)
        #expect(RetryAfterValue.parse("٣", format: .seconds, now: now) == nil)
    }

    /// What a string of ASCII digits must parse to, computed without the
    /// parser: the exact delay, or the maximum once it does not fit.
    static func expectedDelay(digits: String, format: RetryAfterPolicy.Header.Format) -> Duration {
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= 18, let value = Int64(significant.isEmpty ? "0" : String(significant)) else {
            return RetryAfterValue.maximumDelay
        }
        switch format {
        case .milliseconds:
            return value <= Int64.max / 1_000_000 ? .milliseconds(value) : RetryAfterValue.maximumDelay
        default:
            return value <= Int64.max / 1_000_000_000 ? .seconds(value) : RetryAfterValue.maximumDelay
        }
    }

    @Test("Any ASCII number, however long, is its exact delay or the maximum (never no header)")
    func numbersSaturate() async {
        await propertyCheck(
            count: 2000, input: Gen<Character>.number.string(of: 1...40), Gen.int(in: 0...3), Gen.int(in: 0...3)
        ) { digits, before, after in
            let padded = String(repeating: " \t", count: before) + digits + String(repeating: "\t ", count: after)
            for format in [RetryAfterPolicy.Header.Format.http, .seconds, .milliseconds] {
                let expected = Self.expectedDelay(digits: digits, format: format)
                #expect(RetryAfterValue.parse(padded, format: format, now: nil) == expected, "\(format) '\(digits)'")
            }
        }
    }

    @Test("A number above the cap meets the cap policy in every header format", arguments: RetryAfterPolicy.AboveCap.allCases)
    func numbersAboveTheCapMeetTheCapPolicy(aboveCap: RetryAfterPolicy.AboveCap) async {
        let decider = RetryDecider(policy: Self.policy(aboveCap: aboveCap, combine: .server))
        await propertyCheck(count: 1000, input: Gen<Character>.number.string(of: 1...40), Gen.int(in: 0...1)) { digits, headerIndex in
            let (header, format) = [("Retry-After", RetryAfterPolicy.Header.Format.http), ("retry-after-ms", .milliseconds)][headerIndex]
            let expected = Self.expectedDelay(digits: digits, format: format)
            var generator = SplitMix64(seed: 3)
            let decision = decider.decide(
                DecisionInput(outcome: .response(status: 429, headers: [header: digits]), now: Timestamp(secondsSince1970: 0)),
                using: &generator)
            guard expected > Self.cap else {
                #expect(decision.delay == expected && decision.serverDirected, "\(header): '\(digits)'")
                return
            }
            switch aboveCap {
            case .stop:
                #expect(decision.stopReason == .retryAfterTooLong, "\(header): '\(digits)'")
                #expect(decision.error?.retryAfter == expected)
            case .clamp:
                #expect(decision.delay == Self.cap && decision.serverDirected, "\(header): '\(digits)'")
            case .ignore:
                #expect(!decision.serverDirected && (decision.delay ?? .zero) <= Self.backoffMax, "\(header): '\(digits)'")
            }
        }
    }
}
