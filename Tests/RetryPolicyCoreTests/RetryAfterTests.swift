import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

/// One rule of server-delay parsing: a value that exercises it and the
/// delay it must give (`nil`: no usable header, the decider uses the
/// backoff). `urllib3` says how urllib3's `Retry.parse_retry_after` answers
/// where it differs (it matches `^\s*[0-9]+\s*$` as seconds, otherwise uses
/// `email.utils.parsedate_tz`).
struct RetryAfterRule: CustomTestStringConvertible, Sendable {
    var rule: String
    var value: String
    var format: RetryAfterPolicy.Header.Format = .http
    var delay: Duration?
    var urllib3: String? = nil

    var testDescription: String { "\(format): \(rule)" }
}

@Suite struct RetryAfterParsingTests {
    /// 1994-11-06T08:49:37Z, the RFC's example date.
    static let rfcExample = Timestamp(secondsSince1970: 784_111_777)
    /// 90 s before the example date: every valid form of it asks for 90 s.
    static let now = Timestamp(secondsSince1970: 784_111_777 - 90)
    static let maximum = RetryAfterValue.maximumDelay

    static let numberRules: [RetryAfterRule] = [
        .init(rule: "delta-seconds is 1*DIGIT", value: "120", delay: .seconds(120)),
        .init(rule: "optional whitespace (SP, HTAB) around the value is not part of it", value: " \t120\t ",
              delay: .seconds(120), urllib3: "\\s also strips CR, LF, VT, FF and Unicode spaces"),
        .init(rule: "leading zeros are digits", value: "007", delay: .seconds(7)),
        .init(rule: "zero asks for no wait", value: "0", delay: .zero),
        .init(rule: "the largest delta-seconds below the maximum is exact", value: "9223372036",
              delay: .seconds(9_223_372_036)),
        .init(rule: "delta-seconds above the maximum saturate (RFC 9111 §1.2.2)", value: "9223372037", delay: maximum),
        .init(rule: "20-digit delta-seconds saturate, never garbage", value: "99999999999999999999", delay: maximum,
              urllib3: "Python's int is unbounded: urllib3 asks time.sleep for exactly that, which overflows"),
        .init(rule: "Int64.max delta-seconds saturate", value: "9223372036854775807", delay: maximum),
        .init(rule: "10,000 digits saturate", value: String(repeating: "9", count: 10_000), delay: maximum),
        .init(rule: "a minus sign is not a digit: negative is no usable header", value: "-5",
              urllib3: "rejected too (InvalidHeader); only a past date becomes 0"),
        .init(rule: "a plus sign is not a digit", value: "+5"),
        .init(rule: "a fraction is no usable header", value: "1.5"),
        .init(rule: "an exponent is no usable header", value: "1e3"),
        .init(rule: "non-ASCII digits (Arabic-Indic) are no usable header", value: "٣"),
        .init(rule: "non-ASCII digits (fullwidth) are no usable header", value: "５"),
        .init(rule: "a space inside the number", value: "1 2"),
        .init(rule: "a unit after the number", value: "5s"),
        .init(rule: "a no-break space is not optional whitespace", value: "\u{00A0}5",
              urllib3: "accepted: Python's \\s and int() take U+00A0 as whitespace"),
        .init(rule: "CR and LF are not optional whitespace", value: "5\r\n", urllib3: "accepted"),
        .init(rule: "a NUL byte", value: "5\u{0}"),
        .init(rule: "an empty value", value: ""),
        .init(rule: "the seconds format saturates too", value: "99999999999999999999", format: .seconds, delay: maximum),
        .init(rule: "the seconds format takes no dates", value: "Sun, 06 Nov 1994 08:49:37 GMT", format: .seconds),
        .init(rule: "whole milliseconds", value: "1500", format: .milliseconds, delay: .milliseconds(1500)),
        .init(rule: "the largest milliseconds below the maximum are exact", value: "9223372036854", format: .milliseconds,
              delay: .milliseconds(9_223_372_036_854)),
        .init(rule: "milliseconds above the maximum saturate", value: "9223372036855", format: .milliseconds, delay: maximum),
        .init(rule: "30-digit milliseconds saturate", value: "1" + String(repeating: "0", count: 30), format: .milliseconds,
              delay: maximum),
        .init(rule: "a fraction of a millisecond is no usable header", value: "1.5", format: .milliseconds),
        .init(rule: "negative milliseconds are no usable header", value: "-1", format: .milliseconds),
        .init(rule: "a Unix time is the delay from now", value: "784111787", format: .unixSeconds, delay: .seconds(100)),
        .init(rule: "a Unix time in the past asks for no wait", value: "0", format: .unixSeconds, delay: .zero),
        .init(rule: "a Unix time after the end of Timestamp (2262) is after any now: it saturates", value: "9223372037",
              format: .unixSeconds, delay: maximum),
        .init(rule: "a 20-digit Unix time saturates", value: "99999999999999999999", format: .unixSeconds, delay: maximum),
        .init(rule: "a negative Unix time is no usable header", value: "-1", format: .unixSeconds),
        .init(rule: "a fractional Unix time is no usable header", value: "784111787.5", format: .unixSeconds),
    ]

    @Test("Numbers: 1*DIGIT, saturating", arguments: numberRules)
    func numbers(rule: RetryAfterRule) {
        #expect(RetryAfterValue.parse(rule.value, format: rule.format, now: Self.now) == rule.delay)
    }

    static let dateRules: [RetryAfterRule] = [
        .init(rule: "IMF-fixdate", value: "Sun, 06 Nov 1994 08:49:37 GMT", delay: .seconds(90)),
        .init(rule: "obsolete RFC 850 date, long day name", value: "Sunday, 06-Nov-94 08:49:37 GMT", delay: .seconds(90),
              urllib3: "two-digit years use a fixed pivot (69-99 is 19xx, 00-68 is 20xx), not the 50-year rule"),
        .init(rule: "obsolete asctime date, day padded with a space", value: "Sun Nov  6 08:49:37 1994", delay: .seconds(90)),
        .init(rule: "asctime day as two digits", value: "Sun Nov 06 08:49:37 1994", delay: .seconds(90)),
        .init(rule: "the day name is not checked against the date", value: "Mon, 06 Nov 1994 08:49:37 GMT",
              delay: .seconds(90)),
        .init(rule: "second 60 (a leap second) is the first second of the next minute",
              value: "Sun, 06 Nov 1994 08:49:60 GMT", delay: .seconds(113)),
        .init(rule: "29 February in a leap year", value: "Tue, 29 Feb 2028 00:00:00 GMT", delay: .seconds(1_051_283_513)),
        .init(rule: "29 February in a year divisible by 400", value: "Tue, 29 Feb 2000 00:00:00 GMT",
              delay: .seconds(167_670_713)),
        .init(rule: "a date in the past asks for no wait", value: "Sun, 06 Nov 1994 08:48:00 GMT", delay: .zero),
        .init(rule: "year 0000 is a date long past", value: "Sat, 01 Jan 0000 00:00:00 GMT", delay: .zero),
        .init(rule: "a date after the end of Timestamp (2262) saturates", value: "Fri, 31 Dec 9999 23:59:59 GMT",
              delay: maximum),
        .init(rule: "day names are case-sensitive", value: "sun, 06 Nov 1994 08:49:37 GMT",
              urllib3: "accepted: the day name is skipped unread"),
        .init(rule: "upper-case day names are not day names", value: "SUN, 06 Nov 1994 08:49:37 GMT", urllib3: "accepted"),
        .init(rule: "an unknown day name", value: "Sux, 06 Nov 1994 08:49:37 GMT", urllib3: "accepted"),
        .init(rule: "month names are case-sensitive", value: "Sun, 06 NOV 1994 08:49:37 GMT",
              urllib3: "accepted: month names are matched in lower case"),
        .init(rule: "an unknown month", value: "Sun, 06 Foo 1994 08:49:37 GMT"),
        .init(rule: "GMT is case-sensitive", value: "Sun, 06 Nov 1994 08:49:37 gmt", urllib3: "accepted"),
        .init(rule: "no zone but GMT: UTC", value: "Sun, 06 Nov 1994 08:49:37 UTC",
              urllib3: "accepted, as are UT, Z, US zone names and numeric offsets"),
        .init(rule: "no zone but GMT: a numeric offset", value: "Sun, 06 Nov 1994 08:49:37 +0000", urllib3: "accepted"),
        .init(rule: "IMF-fixdate and RFC 850 need the zone", value: "Sun, 06 Nov 1994 08:49:37",
              urllib3: "accepted, read as local time"),
        .init(rule: "asctime has no zone", value: "Sun Nov  6 08:49:37 1994 GMT"),
        .init(rule: "the IMF-fixdate day is two digits", value: "Sun, 6 Nov 1994 08:49:37 GMT", urllib3: "accepted"),
        .init(rule: "the IMF-fixdate year is four digits", value: "Sun, 06 Nov 94 08:49:37 GMT",
              urllib3: "accepted as 1994"),
        .init(rule: "IMF-fixdate takes the short day name", value: "Sunday, 06 Nov 1994 08:49:37 GMT", urllib3: "accepted"),
        .init(rule: "RFC 850 takes the long day name", value: "Sun, 06-Nov-94 08:49:37 GMT", urllib3: "accepted"),
        .init(rule: "the RFC 850 year is two digits", value: "Sunday, 06-Nov-1994 08:49:37 GMT"),
        .init(rule: "asctime takes the short day name", value: "Sunday Nov  6 08:49:37 1994"),
        .init(rule: "a one-digit asctime day needs the padding space", value: "Sun Nov 6 08:49:37 1994"),
        .init(rule: "a two-digit asctime day takes no padding space", value: "Sun Nov  16 08:49:37 1994"),
        .init(rule: "the asctime year is four digits", value: "Sun Nov  6 08:49:37 94"),
        .init(rule: "a comma after the day name, except in asctime", value: "Sun 06 Nov 1994 08:49:37 GMT"),
        .init(rule: "single spaces only", value: "Sun,  06 Nov 1994 08:49:37 GMT", urllib3: "accepted"),
        .init(rule: "a tab is not a space inside a date", value: "Sun,\t06 Nov 1994 08:49:37 GMT"),
        .init(rule: "nothing after the date", value: "Sun, 06 Nov 1994 08:49:37 GMT;"),
        .init(rule: "hour, minute and second are two digits", value: "Sun, 06 Nov 1994 8:49:37 GMT"),
        .init(rule: "seconds are required", value: "Sun, 06 Nov 1994 08:49 GMT", urllib3: "accepted"),
        .init(rule: "hour 24 does not exist", value: "Sun, 06 Nov 1994 24:00:00 GMT"),
        .init(rule: "minute 60 does not exist", value: "Sun, 06 Nov 1994 08:60:00 GMT"),
        .init(rule: "second 61 does not exist", value: "Sun, 06 Nov 1994 08:49:61 GMT"),
        .init(rule: "day 00 does not exist", value: "Sun, 00 Nov 1994 08:49:37 GMT"),
        .init(rule: "day 32 does not exist", value: "Sun, 32 Nov 1994 08:49:37 GMT"),
        .init(rule: "31 April does not exist", value: "Wed, 31 Apr 2024 00:00:00 GMT"),
        .init(rule: "30 February does not exist", value: "Fri, 30 Feb 2024 00:00:00 GMT"),
        .init(rule: "29 February in a common year does not exist", value: "Wed, 29 Feb 2023 00:00:00 GMT"),
        .init(rule: "29 February 2100 does not exist (a century not divisible by 400)",
              value: "Mon, 29 Feb 2100 00:00:00 GMT"),
        .init(rule: "asctime dates are checked too", value: "Fri Feb 30 00:00:00 2024"),
        .init(rule: "non-ASCII names", value: "Ünïcödé, 01 Jän 2024 00:00:00 GMT"),
        .init(rule: "a repeated prefix", value: String(repeating: "Mon, ", count: 1000)),
    ]

    @Test("HTTP-dates: RFC 9110 §5.6.7 exactly", arguments: dateRules)
    func httpDates(rule: RetryAfterRule) {
        #expect(RetryAfterValue.parse(rule.value, format: .http, now: Self.now) == rule.delay)
    }

    @Test("The three forms name the RFC's example instant", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func httpDateForms(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == Self.rfcExample)
    }

    @Test("Only the IMF-fixdate parses without a now")
    func imfFixdateAlone() {
        #expect(HTTPDate.parseIMFFixdate("Sun, 06 Nov 1994 08:49:37 GMT") == Self.rfcExample)
        #expect(HTTPDate.parseIMFFixdate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parseIMFFixdate("Sun Nov  6 08:49:37 1994") == nil)
        #expect(HTTPDate.parseIMFFixdate("Sun, 06 Nov 1994 08:49:37 GMT ") == nil)
    }

    /// An RFC 850 two-digit year at a given now, and the year it means.
    struct ShortYear: CustomTestStringConvertible, Sendable {
        var now: (year: Int, month: Int, day: Int, hour: Int)
        var text: String
        var year: Int?
        var urllib3: Int? = nil
        var testDescription: String { "'\(text)' at \(now.year)-\(now.month)-\(now.day) is \(year.map(String.init) ?? "invalid")" }
    }

    static let shortYears: [ShortYear] = [
        .init(now: (2026, 11, 23, 12), text: "Monday, 23-Nov-76 12:00:00 GMT", year: 2076, urllib3: 1976),
        .init(now: (2026, 11, 23, 12), text: "Monday, 23-Nov-76 12:00:01 GMT", year: 1976),
        .init(now: (2026, 11, 23, 12), text: "Tuesday, 24-Nov-76 00:00:00 GMT", year: 1976),
        .init(now: (2026, 11, 23, 12), text: "Sunday, 22-Nov-76 23:59:59 GMT", year: 2076, urllib3: 1976),
        .init(now: (2026, 11, 23, 12), text: "Friday, 01-Jan-77 00:00:00 GMT", year: 1977),
        .init(now: (2026, 11, 23, 12), text: "Sunday, 01-Jan-75 00:00:00 GMT", year: 2075, urllib3: 1975),
        .init(now: (2026, 11, 23, 12), text: "Sunday, 01-Jan-69 00:00:00 GMT", year: 2069, urllib3: 1969),
        .init(now: (2026, 11, 23, 12), text: "Friday, 01-Jan-99 00:00:00 GMT", year: 1999),
        .init(now: (2026, 11, 23, 12), text: "Saturday, 01-Jan-00 00:00:00 GMT", year: 2000),
        .init(now: (2026, 11, 23, 12), text: "Tuesday, 29-Feb-00 00:00:00 GMT", year: 2000),
        .init(now: (2026, 11, 23, 12), text: "Monday, 23-Nov-26 12:00:00 GMT", year: 2026),
        .init(now: (2080, 6, 1, 0), text: "Friday, 01-Jan-30 00:00:00 GMT", year: 2130, urllib3: 2030),
        .init(now: (2080, 6, 1, 0), text: "Wednesday, 01-Jan-31 00:00:00 GMT", year: 2031),
        .init(now: (2080, 6, 1, 0), text: "Monday, 01-Jan-80 00:00:00 GMT", year: 2080),
        .init(now: (2060, 1, 1, 0), text: "Monday, 29-Feb-00 00:00:00 GMT", year: nil),  // 2100: not a leap year
        .init(now: (1677, 10, 1, 0), text: "Friday, 01-Jan-27 00:00:00 GMT", year: 1727),
        .init(now: (2262, 1, 1, 0), text: "Friday, 01-Jan-12 00:00:00 GMT", year: 2312),
    ]

    @Test("RFC 850 two-digit years: not more than 50 years after now", arguments: shortYears)
    func rfc850ShortYear(example: ShortYear) throws {
        let now = try #require(HTTPDate.timestamp(
            year: example.now.year, month: example.now.month, day: example.now.day, hour: example.now.hour,
            minute: 0, second: 0))
        let parsed = HTTPDate.parse(example.text, now: now)
        guard let year = example.year else {
            #expect(parsed == nil)
            return
        }
        let yearOffset = example.text.firstIndex(of: "-")!
        let day = Int(example.text[example.text.index(yearOffset, offsetBy: -2)..<yearOffset])!
        let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            .firstIndex(of: String(example.text[example.text.index(after: yearOffset)...].prefix(3)))! + 1
        let time = example.text.split(separator: " ")[2].split(separator: ":").map { Int($0)! }
        let expected = HTTPDate.timestamp(year: year, month: month, day: day, hour: time[0], minute: time[1], second: time[2])
        #expect(parsed != nil && parsed == expected)
    }

    @Test("Calendar arithmetic agrees with known instants")
    func knownInstants() {
        #expect(HTTPDate.timestamp(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0) == Timestamp(secondsSince1970: 0))
        #expect(HTTPDate.timestamp(year: 2026, month: 11, day: 23, hour: 12, minute: 0, second: 0)
                == Timestamp(secondsSince1970: 1_795_435_200))
        #expect(HTTPDate.timestamp(year: 2076, month: 11, day: 23, hour: 12, minute: 0, second: 0)
                == Timestamp(secondsSince1970: 3_373_358_400))
        #expect(HTTPDate.timestamp(year: 1976, month: 11, day: 23, hour: 12, minute: 0, second: 1)
                == Timestamp(secondsSince1970: 217_598_401))
        #expect(HTTPDate.timestamp(year: 2023, month: 2, day: 29, hour: 0, minute: 0, second: 0) == nil)
        #expect(HTTPDate.timestamp(year: 2024, month: 13, day: 1, hour: 0, minute: 0, second: 0) == nil)
    }

    @Test("A date without a known now cannot be resolved")
    func dateNeedsNow() {
        #expect(RetryAfterValue.parse("Sun, 06 Nov 1994 08:49:37 GMT", format: .http, now: nil) == nil)
        #expect(RetryAfterValue.parse("784111787", format: .unixSeconds, now: nil) == nil)
        #expect(RetryAfterValue.parse("99999999999999999999", format: .http, now: nil) == Self.maximum)
    }

    @Test("Header names are case-insensitive")
    func caseInsensitive() {
        let headers: ResponseHeaders = ["retry-AFTER": "3"]
        #expect(RetryAfterPolicy().serverDelay(in: headers, now: nil) == .seconds(3))
    }

    @Test("The first configured header present with a valid value wins")
    func headerOrder() {
        let policy = RetryAfterPolicy(headers: [
            .init(name: "retry-after-ms", format: .milliseconds), .retryAfter,
        ])
        #expect(policy.serverDelay(in: ["Retry-After": "3", "retry-after-ms": "250"], now: nil) == .milliseconds(250))
        #expect(policy.serverDelay(in: ["Retry-After": "3", "retry-after-ms": "junk"], now: nil) == .seconds(3))
        // A saturated value is valid: it wins, and then meets the cap.
        #expect(policy.serverDelay(in: ["Retry-After": "3", "retry-after-ms": "99999999999999999999"], now: nil)
                == RetryAfterValue.maximumDelay)
    }
}

@Suite struct RetryAfterDecisionTests {
    func policy(
        cap: Duration?, aboveCap: RetryAfterPolicy.AboveCap = .stop, combine: RetryAfterPolicy.Combine = .server,
        cooldown: RetryAfterPolicy.Cooldown = .off
    ) -> Policy {
        var policy = TestPolicies.tmdb()
        policy.retryAfter = RetryAfterPolicy(
            honor: true, cap: cap, aboveCap: aboveCap, combine: combine,
            headers: [.retryAfter, .init(name: "retry-after-ms", format: .milliseconds),
                      .init(name: "X-RateLimit-Reset", format: .unixSeconds)],
            cooldown: cooldown)
        return policy
    }

    @Test("Above the cap, stop (default) with retry_after_too_long, carrying the server's value")
    func aboveCapStops() {
        let decision = decide(policy(cap: .seconds(60)), .status(429, retryAfter: "3600"))
        #expect(decision.stopReason == .retryAfterTooLong)
        #expect(decision.error?.retryAfter == .seconds(3600))
        #expect(decision.error?.kind == .status429)
    }

    @Test("Above the cap, clamp waits the cap")
    func aboveCapClamps() {
        #expect(decide(policy(cap: .seconds(60), aboveCap: .clamp), .status(429, retryAfter: "3600")).delay == .seconds(60))
    }

    @Test("Above the cap, ignore falls back to backoff")
    func aboveCapIgnored() {
        let decision = decide(policy(cap: .seconds(60), aboveCap: .ignore), .status(429, retryAfter: "3600"))
        #expect(decision.delayBounds == .zero...(.seconds(1)))
        #expect(!decision.serverDirected)
    }

    /// A value too large to represent in each header format.
    static let overflowing: [(header: String, value: String)] = [
        ("Retry-After", "99999999999999999999"), ("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT"),
        ("retry-after-ms", "99999999999999999999"), ("X-RateLimit-Reset", "99999999999999999999"),
    ]

    @Test("An overflowing value with above_cap: stop stops with retry_after_too_long", arguments: 0..<overflowing.count)
    func overflowStops(index: Int) {
        let (header, value) = Self.overflowing[index]
        let outcome = AttemptOutcome.response(status: 429, headers: [header: value])
        let decision = decide(policy(cap: .seconds(60)), outcome, now: Timestamp(secondsSince1970: 1_795_435_200))
        #expect(decision.stopReason == .retryAfterTooLong, "\(header): \(value)")
        #expect(decision.error?.retryAfter == RetryAfterValue.maximumDelay)
        #expect(decision.error?.message.contains("server asked to retry after") == true)
    }

    @Test("An overflowing value with above_cap: clamp waits exactly the cap", arguments: RetryAfterPolicy.Combine.allCases)
    func overflowClamps(combine: RetryAfterPolicy.Combine) {
        for (header, value) in Self.overflowing {
            let outcome = AttemptOutcome.response(status: 429, headers: [header: value])
            let decision = decide(policy(cap: .seconds(60), aboveCap: .clamp, combine: combine), outcome,
                                  now: Timestamp(secondsSince1970: 1_795_435_200))
            #expect(decision.delay == .seconds(60), "\(header): \(value)")
            #expect(decision.serverDirected)
        }
    }

    @Test("An overflowing value with above_cap: ignore uses the backoff")
    func overflowIgnored() {
        for (header, value) in Self.overflowing {
            let outcome = AttemptOutcome.response(status: 429, headers: [header: value])
            let decision = decide(policy(cap: .seconds(60), aboveCap: .ignore), outcome,
                                  now: Timestamp(secondsSince1970: 1_795_435_200))
            #expect(decision.delayBounds == .zero...(.seconds(1)), "\(header): \(value)")
            #expect(!decision.serverDirected)
        }
    }

    @Test("Without a cap, an overflowing value waits the maximum, and a total deadline stops it without overflow")
    func overflowWithoutCap() {
        let uncapped = decide(policy(cap: nil), .status(429, retryAfter: "99999999999999999999"))
        #expect(uncapped.delay == RetryAfterValue.maximumDelay)
        var deadline = policy(cap: nil, combine: .max)
        deadline.timeouts.total = .seconds(30)
        for elapsed in [Duration.zero, .seconds(29), .seconds(Int64.max)] {
            let decision = decide(deadline, .status(429, retryAfter: "99999999999999999999"), elapsed: elapsed)
            #expect(decision.stopReason == .deadlineExceeded)
        }
    }

    @Test("A saturated value's cooldown is clamped to the cap, at any wall-clock time", arguments: [
        Int64.min, -1, 0, 1_795_435_200_000_000_000, .max - 1, .max,
    ])
    func overflowCooldown(nanoseconds: Int64) {
        let now = Timestamp(nanosecondsSince1970: nanoseconds)
        for (cap, expected) in [(Duration?.some(.seconds(60)), Duration.seconds(60)), (nil, RetryAfterValue.maximumDelay)] {
            let decider = RetryDecider(policy: policy(cap: cap, aboveCap: .clamp, cooldown: .wait))
            var generator = SplitMix64(seed: 1)
            _ = decider.decide(DecisionInput(outcome: .status(429, retryAfter: "99999999999999999999"), now: now),
                               using: &generator)
            switch decider.admit(now: now) {
            case .wait(let remaining):
                // At the end of time the deadline saturates: what is left is less.
                #expect(remaining > .zero && remaining <= expected)
                if nanoseconds <= Int64.max - expected.nanosecondsSaturated { #expect(remaining == expected) }
            case .proceed:
                #expect(nanoseconds == .max, "no cooldown at \(nanoseconds)")
            case .reject:
                Issue.record("cooldown wait rejected")
            }
        }
    }

    @Test("Combine max takes the larger of the server's value and the backoff")
    func combineMax() {
        let decision = decide(policy(cap: .seconds(60), combine: .max), .status(503, retryAfter: "2"), attempt: 3)
        #expect(decision.delayBounds == .seconds(2)...(.seconds(4)))
        let delay = decision.delay ?? .zero
        #expect(delay >= .seconds(2) && delay <= .seconds(4))
    }

    @Test("No usable header falls back to backoff", arguments: [
        "-7", "1.5", "+5", "٣", "Sun, 06 Nov 1994 08:49:37 UTC", "Fri, 30 Feb 2024 00:00:00 GMT",
    ])
    func garbageFallsBack(value: String) {
        let decision = decide(policy(cap: .seconds(60)), .status(503, retryAfter: value), now: Timestamp(secondsSince1970: 0))
        #expect(decision.delayBounds == .zero...(.seconds(1)))
        #expect(decision.error == nil)
        #expect(!decision.serverDirected)
    }

    @Test("A rule can refuse to honour Retry-After")
    func ruleOverride() {
        var policy = policy(cap: .seconds(60))
        policy.rules[0].honorRetryAfter = false
        #expect(decide(policy, .status(429, retryAfter: "5")).delayBounds == .zero...(.seconds(1)))
        #expect(decide(policy, .status(429, retryAfter: "99999999999999999999")).delayBounds == .zero...(.seconds(1)))
    }

    @Test("HTTP-date Retry-After resolves against the decision's now")
    func httpDate() {
        let now = Timestamp(secondsSince1970: 784_111_777 - 4)
        let decision = decide(policy(cap: .seconds(60)), .status(503, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT"), now: now)
        #expect(decision.delay == .seconds(4))
    }
}
