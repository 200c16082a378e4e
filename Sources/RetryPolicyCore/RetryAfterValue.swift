/// Parsing of server-directed delays: `Retry-After` (RFC 9110 §10.2.3) as
/// delta-seconds or HTTP-date, and the vendor forms policies may name.
///
/// Everything a server sends is untrusted: garbage, negative and
/// overflowing values give `nil` (the decider falls back to backoff), never a
/// trap.
public enum RetryAfterValue {
    /// The delay `value` asks for, relative to `now`. A date in the past gives
    /// zero. Date forms need `now`; without it they give `nil`.
    public static func parse(_ value: String, format: RetryAfterPolicy.Header.Format, now: Timestamp?) -> Duration? {
        var utf8 = Substring(value).utf8[...]
        trimWhitespace(&utf8)
        if utf8.isEmpty { return nil }
        switch format {
        case .http:
            if let seconds = parseDigits(utf8) { return secondsDuration(seconds) }
            guard let now, let date = HTTPDate.parse(utf8) else { return nil }
            return nonNegative(date.duration(since: now))
        case .seconds:
            return parseDigits(utf8).flatMap(secondsDuration)
        case .milliseconds:
            guard let milliseconds = parseDigits(utf8) else { return nil }
            return .milliseconds(milliseconds)
        case .unixSeconds:
            guard let now, let seconds = parseDigits(utf8), let date = checkedTimestamp(seconds) else { return nil }
            return nonNegative(date.duration(since: now))
        }
    }

    /// Values beyond this are treated as garbage: no real server means a
    /// delay of more than ~31 years, and larger values overflow `Duration`
    /// arithmetic downstream.
    static let maximumSeconds: Int64 = 1_000_000_000

    private static func secondsDuration(_ seconds: Int64) -> Duration? {
        seconds <= maximumSeconds ? .seconds(seconds) : nil
    }

    private static func checkedTimestamp(_ seconds: Int64) -> Timestamp? {
        seconds <= 100_000_000_000 ? Timestamp(secondsSince1970: seconds) : nil
    }

    private static func nonNegative(_ duration: Duration) -> Duration {
        duration < .zero ? .zero : duration
    }

    /// 1*DIGIT, at most 18 digits so that the value fits `Int64`.
    static func parseDigits(_ bytes: Substring.UTF8View.SubSequence) -> Int64? {
        if bytes.isEmpty || bytes.count > 18 { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }

    static func trimWhitespace(_ bytes: inout Substring.UTF8View.SubSequence) {
        while let first = bytes.first, first == 32 || first == 9 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 32 || last == 9 { bytes = bytes.dropLast() }
    }
}

/// HTTP-date (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and
/// asctime forms recipients must still accept.
public enum HTTPDate {
    /// Parses any of the three forms. Returns `nil` for anything else.
    public static func parse(_ text: String) -> Timestamp? {
        parse(Substring(text).utf8[...])
    }

    static func parse(_ bytes: Substring.UTF8View.SubSequence) -> Timestamp? {
        var scanner = Scanner(bytes: bytes)
        // Day name: letters, then either ',' (IMF or RFC 850) or ' ' (asctime).
        guard let dayName = scanner.letters(), dayName >= 3 else { return nil }
        if scanner.consume(44) {  // ','
            guard scanner.consume(32) else { return nil }
            guard let day = scanner.number(maxDigits: 2) else { return nil }
            if scanner.consume(32) {
                // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
                guard dayName == 3, let month = scanner.month(), scanner.consume(32),
                    let year = scanner.number(exactDigits: 4), scanner.consume(32),
                    let time = scanner.time(), scanner.consume(32), scanner.literal("GMT"), scanner.atEnd
                else { return nil }
                return make(year: year, month: month, day: day, time: time)
            } else if scanner.consume(45) {  // '-'
                // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
                guard let month = scanner.month(), scanner.consume(45),
                    let shortYear = scanner.number(exactDigits: 2), scanner.consume(32),
                    let time = scanner.time(), scanner.consume(32), scanner.literal("GMT"), scanner.atEnd
                else { return nil }
                // RFC 9110: a two-digit year that appears more than 50 years in
                // the future means the past century; anchored at 1970.
                let year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
                return make(year: year, month: month, day: day, time: time)
            }
            return nil
        } else if dayName == 3, scanner.consume(32) {
            // asctime: Sun Nov  6 08:49:37 1994
            guard let month = scanner.month(), scanner.consume(32) else { return nil }
            _ = scanner.consume(32)  // day is space-padded
            guard let day = scanner.number(maxDigits: 2), scanner.consume(32),
                let time = scanner.time(), scanner.consume(32),
                let year = scanner.number(exactDigits: 4), scanner.atEnd
            else { return nil }
            return make(year: year, month: month, day: day, time: time)
        }
        return nil
    }

    private static func make(year: Int64, month: Int64, day: Int64, time: (Int64, Int64, Int64)) -> Timestamp? {
        guard (1...31).contains(day), time.0 < 24, time.1 < 60, time.2 < 61 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.0 * 3600 + time.1 * 60 + time.2
        return Timestamp(secondsSince1970: seconds)
    }

    /// Howard Hinnant's days-from-civil algorithm.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthIndex + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private struct Scanner {
        var bytes: Substring.UTF8View.SubSequence

        var atEnd: Bool { bytes.isEmpty }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard bytes.first == byte else { return false }
            bytes = bytes.dropFirst()
            return true
        }

        mutating func letters() -> Int? {
            var count = 0
            while let byte = bytes.first, (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) {
                bytes = bytes.dropFirst()
                count += 1
            }
            return count == 0 ? nil : count
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            guard bytes.count >= expected.count else { return false }
            var copy = bytes
            for byte in expected {
                guard copy.first == byte else { return false }
                copy = copy.dropFirst()
            }
            bytes = copy
            return true
        }

        mutating func number(maxDigits: Int) -> Int64? {
            var value: Int64 = 0
            var count = 0
            while count < maxDigits, let byte = bytes.first, byte >= 48 && byte <= 57 {
                value = value * 10 + Int64(byte - 48)
                bytes = bytes.dropFirst()
                count += 1
            }
            return count == 0 ? nil : value
        }

        mutating func number(exactDigits: Int) -> Int64? {
            let before = bytes.count
            guard let value = number(maxDigits: exactDigits), before - bytes.count == exactDigits else { return nil }
            if let next = bytes.first, next >= 48 && next <= 57 { return nil }
            return value
        }

        mutating func time() -> (Int64, Int64, Int64)? {
            guard let hour = number(exactDigits: 2), consume(58),
                let minute = number(exactDigits: 2), consume(58),
                let second = number(exactDigits: 2)
            else { return nil }
            return (hour, minute, second)
        }

        static let monthNames: [StaticString] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ]

        mutating func month() -> Int64? {
            for (index, name) in Self.monthNames.enumerated() where literal(name) { return Int64(index + 1) }
            return nil
        }
    }
}
