/// Parsing of server-directed delays: `Retry-After` (RFC 9110 §10.2.3) as
/// delta-seconds or HTTP-date, and the vendor forms policies may name.
///
/// Everything a server sends is untrusted and nothing here traps:
///
/// - A value too large to represent is a very large delay (RFC 9111 §1.2.2),
///   not garbage: it saturates to ``maximumDelay`` and then meets the
///   policy's cap like any other long delay (stop, clamp or ignore).
/// - A value that is not exactly what the format's grammar allows (a sign,
///   a fraction, non-ASCII digits, an HTTP-date with a wrong name, spacing,
///   zone or calendar date) gives `nil`: no usable header, so the decider
///   uses the backoff.
/// - A time in the past gives zero.
public enum RetryAfterValue {
    /// The longest delay a server can ask for: `Int64.max` nanoseconds
    /// (about 292 years), the span of a ``Timestamp``. Every form saturates
    /// here, so no parsed delay can overflow the arithmetic it meets later
    /// (cooldown deadlines, deadline checks, clocks).
    public static let maximumDelay: Duration = .nanoseconds(Int64.max)

    /// The delay `value` asks for, relative to `now`. A date in the past gives
    /// zero. Date forms need `now`; without it they give `nil`.
    public static func parse(_ value: String, format: RetryAfterPolicy.Header.Format, now: Timestamp?) -> Duration? {
        var utf8 = Substring(value).utf8[...]
        trimWhitespace(&utf8)
        if utf8.isEmpty { return nil }
        switch format {
        case .http:
            if let seconds = parseDigits(utf8) { return delay(seconds: seconds) }
            guard let now, let date = HTTPDate.secondsSince1970(utf8, now: now) else { return nil }
            return delay(untilSecondsSince1970: date, now: now)
        case .seconds:
            return parseDigits(utf8).map(delay(seconds:))
        case .milliseconds:
            return parseDigits(utf8).map(delay(milliseconds:))
        case .unixSeconds:
            guard let now, let seconds = parseDigits(utf8) else { return nil }
            return delay(untilSecondsSince1970: seconds, now: now)
        }
    }

    static func delay(seconds: Int64) -> Duration {
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? maximumDelay : .nanoseconds(nanoseconds)
    }

    static func delay(milliseconds: Int64) -> Duration {
        let (nanoseconds, overflow) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? maximumDelay : .nanoseconds(nanoseconds)
    }

    /// From `now` to an instant given in whole seconds since 1970. An
    /// instant beyond the end of ``Timestamp`` is after any `now`: the
    /// delay is the maximum. Before `now`, zero.
    static func delay(untilSecondsSince1970 seconds: Int64, now: Timestamp) -> Duration {
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds > 0 ? maximumDelay : .zero }
        let duration = Timestamp(nanosecondsSince1970: nanoseconds).duration(since: now)
        if duration < .zero { return .zero }
        return duration > maximumDelay ? maximumDelay : duration
    }

    /// `1*DIGIT` (ASCII only, no sign, no fraction), saturating at
    /// `Int64.max`: any number of digits is a number, however large.
    static func parseDigits(_ bytes: Substring.UTF8View.SubSequence) -> Int64? {
        if bytes.isEmpty { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 48 && byte <= 57 else { return nil }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = scaled.addingReportingOverflow(Int64(byte - 48))
            value = overflow || overflow2 ? .max : sum
        }
        return value
    }

    /// Optional whitespace around a field value (RFC 9110 §5.5): SP and
    /// HTAB only.
    static func trimWhitespace(_ bytes: inout Substring.UTF8View.SubSequence) {
        while let first = bytes.first, first == 32 || first == 9 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 32 || last == 9 { bytes = bytes.dropLast() }
    }
}

/// HTTP-date (RFC 9110 §5.6.7), exactly as the grammar gives it:
///
///     IMF-fixdate  = day-name "," SP day SP month SP year SP time-of-day SP "GMT"
///                    ; Sun, 06 Nov 1994 08:49:37 GMT
///     rfc850-date  = day-name-l "," SP day "-" month "-" 2DIGIT SP time-of-day SP "GMT"
///                    ; Sunday, 06-Nov-94 08:49:37 GMT
///     asctime-date = day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP year
///                    ; Sun Nov  6 08:49:37 1994
///
/// Names are case-sensitive (`Sun`, `Sunday`, `Nov`); `day`, `hour`,
/// `minute` and `second` are exactly two digits, `year` four; single spaces
/// only; the zone is `GMT` and nothing else. The date must exist (no
/// 30 February, no day 00), hours are 00-23, minutes 00-59 and seconds
/// 00-60 (60 is a leap second, counted as the first second of the next
/// minute). The day name is not checked against the date. A two-digit
/// RFC 850 year is the one that is not more than 50 years after `now`.
public enum HTTPDate {
    /// The instant `text` names, or `nil` unless it is one of the three
    /// forms. `now` resolves the two-digit year of the RFC 850 form. The
    /// result saturates at the ends of ``Timestamp`` (years 1677 and 2262).
    public static func parse(_ text: String, now: Timestamp) -> Timestamp? {
        secondsSince1970(Substring(text).utf8[...], now: now).map(Timestamp.init(secondsSince1970:))
    }

    /// An IMF-fixdate only (the form a sender must generate), which needs no
    /// `now`.
    package static func parseIMFFixdate(_ text: String) -> Timestamp? {
        var scanner = Scanner(bytes: Substring(text).utf8[...])
        guard scanner.oneOf(dayNames) != nil, scanner.consume(44) else { return nil }
        return imfFixdate(&scanner).map(Timestamp.init(secondsSince1970:))
    }

    /// The instant of a date and time of day (UTC), or `nil` when it does
    /// not exist: month 1-12, a day the month has, hour 0-23, minute 0-59,
    /// second 0-60 (a leap second). Saturates like ``parse(_:now:)``.
    package static func timestamp(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Timestamp? {
        guard (-1_000_000...1_000_000).contains(year) else { return nil }
        return secondsSince1970(
            CivilTime(year: Int64(year), month: Int64(month), day: Int64(day), hour: Int64(hour), minute: Int64(minute),
                      second: Int64(second))
        ).map(Timestamp.init(secondsSince1970:))
    }

    /// Any of the three forms, in whole seconds since 1970 (not saturated).
    static func secondsSince1970(_ bytes: Substring.UTF8View.SubSequence, now: Timestamp) -> Int64? {
        var scanner = Scanner(bytes: bytes)
        // The long names first: "Monday" starts with "Mon".
        if scanner.oneOf(longDayNames) != nil {
            guard scanner.consume(44) else { return nil }  // ','
            return rfc850Date(&scanner, now: now)
        }
        guard scanner.oneOf(dayNames) != nil else { return nil }
        if scanner.consume(44) { return imfFixdate(&scanner) }  // ','
        guard scanner.consume(32) else { return nil }
        return asctimeDate(&scanner)
    }

    /// After `day-name ","`: `SP 06 SP Nov SP 1994 SP 08:49:37 SP GMT`.
    private static func imfFixdate(_ scanner: inout Scanner) -> Int64? {
        guard scanner.consume(32), let day = scanner.digits(2), scanner.consume(32),
            let month = scanner.month(), scanner.consume(32),
            let year = scanner.digits(4), scanner.consume(32),
            let time = scanner.timeOfDay(), scanner.consume(32), scanner.literal("GMT"), scanner.atEnd
        else { return nil }
        return secondsSince1970(CivilTime(year: year, month: month, day: day, time: time))
    }

    /// After `day-name-l ","`: `SP 06-Nov-94 SP 08:49:37 SP GMT`.
    private static func rfc850Date(_ scanner: inout Scanner, now: Timestamp) -> Int64? {
        guard scanner.consume(32), let day = scanner.digits(2), scanner.consume(45),  // '-'
            let month = scanner.month(), scanner.consume(45),
            let shortYear = scanner.digits(2), scanner.consume(32),
            let time = scanner.timeOfDay(), scanner.consume(32), scanner.literal("GMT"), scanner.atEnd
        else { return nil }
        var date = CivilTime(year: 0, month: month, day: day, time: time)
        date.year = resolve(shortYear: shortYear, of: date, now: now)
        return secondsSince1970(date)
    }

    /// After `day-name SP`: `Nov SP ( 06 / SP 6 ) SP 08:49:37 SP 1994`.
    private static func asctimeDate(_ scanner: inout Scanner) -> Int64? {
        guard let month = scanner.month(), scanner.consume(32) else { return nil }
        let day: Int64?
        if scanner.consume(32) { day = scanner.digits(1) } else { day = scanner.digits(2) }
        guard let day, scanner.consume(32), let time = scanner.timeOfDay(), scanner.consume(32),
            let year = scanner.digits(4), scanner.atEnd
        else { return nil }
        return secondsSince1970(CivilTime(year: year, month: month, day: day, time: time))
    }

    /// RFC 9110 §5.6.7: a two-digit year that "appears to be more than 50
    /// years in the future" is "the most recent year in the past that had
    /// the same last two digits". So the year is the latest one ending in
    /// `shortYear` whose date is at most 50 years after `now`.
    static func resolve(shortYear: Int64, of date: CivilTime, now: Timestamp) -> Int64 {
        let current = CivilTime(now)
        let limit = current.year + 50
        var year = limit - (((limit - shortYear) % 100) + 100) % 100
        if year == limit && date.laterInYear(than: current) { year -= 100 }
        return year
    }

    /// Whole seconds since 1970 for a valid date and time, `nil` otherwise.
    static func secondsSince1970(_ date: CivilTime) -> Int64? {
        guard (1...12).contains(date.month), (1...daysInMonth(year: date.year, month: date.month)).contains(date.day),
            (0...23).contains(date.hour), (0...59).contains(date.minute), (0...60).contains(date.second)
        else { return nil }
        let days = daysFromCivil(year: date.year, month: date.month, day: date.day)
        return days * 86_400 + date.hour * 3600 + date.minute * 60 + date.second
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Howard Hinnant's days-from-civil algorithm (proleptic Gregorian).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Howard Hinnant's civil-from-days algorithm: (year, month, day).
    static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    struct CivilTime {
        var year: Int64
        var month: Int64
        var day: Int64
        var hour: Int64
        var minute: Int64
        var second: Int64

        init(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) {
            (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
        }

        init(year: Int64, month: Int64, day: Int64, time: (Int64, Int64, Int64)) {
            self.init(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2)
        }

        /// The UTC calendar date and time of `timestamp` (whole seconds).
        init(_ timestamp: Timestamp) {
            let nanoseconds = timestamp.nanosecondsSince1970
            var seconds = nanoseconds / 1_000_000_000
            if nanoseconds % 1_000_000_000 < 0 { seconds -= 1 }
            var days = seconds / 86_400
            var secondOfDay = seconds % 86_400
            if secondOfDay < 0 { days -= 1; secondOfDay += 86_400 }
            let (year, month, day) = HTTPDate.civilFromDays(days)
            self.init(year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60,
                      second: secondOfDay % 60)
        }

        /// Whether this date and time comes after `other`'s within a year
        /// (the years are not compared).
        func laterInYear(than other: CivilTime) -> Bool {
            (month, day, hour, minute, second) > (other.month, other.day, other.hour, other.minute, other.second)
        }
    }

    static let dayNames: [StaticString] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let longDayNames: [StaticString] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let monthNames: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    struct Scanner {
        var bytes: Substring.UTF8View.SubSequence

        var atEnd: Bool { bytes.isEmpty }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard bytes.first == byte else { return false }
            bytes = bytes.dropFirst()
            return true
        }

        /// Consumes `text` exactly (case-sensitive) or nothing.
        mutating func literal(_ text: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            var copy = bytes
            for byte in expected {
                guard copy.first == byte else { return false }
                copy = copy.dropFirst()
            }
            bytes = copy
            return true
        }

        /// The index of the name in `names` that comes next, consumed.
        mutating func oneOf(_ names: [StaticString]) -> Int? {
            for (index, name) in names.enumerated() where literal(name) { return index }
            return nil
        }

        /// Exactly `count` ASCII digits.
        mutating func digits(_ count: Int) -> Int64? {
            var value: Int64 = 0
            var copy = bytes
            for _ in 0..<count {
                guard let byte = copy.first, byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
                copy = copy.dropFirst()
            }
            bytes = copy
            return value
        }

        /// `hour ":" minute ":" second`, two digits each.
        mutating func timeOfDay() -> (Int64, Int64, Int64)? {
            guard let hour = digits(2), consume(58), let minute = digits(2), consume(58), let second = digits(2)
            else { return nil }
            return (hour, minute, second)
        }

        mutating func month() -> Int64? {
            oneOf(HTTPDate.monthNames).map { Int64($0 + 1) }
        }
    }
}
