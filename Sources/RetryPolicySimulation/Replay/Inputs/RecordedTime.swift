import RetryPolicyCore

/// The timestamps recordings write, read without Foundation: ISO 8601 /
/// RFC 3339 (HAR, Envoy, nginx's `$time_iso8601`, JSONL), nginx's
/// `$time_local` (`10/Oct/2000:13:55:36 -0700`) and seconds since 1970 with
/// a fraction (nginx's `$msec`, JSONL numbers).
enum RecordedTime {
    /// `2026-11-17T14:03:07.120Z`, `2026-11-17T14:03:07+01:00`,
    /// `2026-11-17 14:03:07.5Z`. A time without a zone is refused: a
    /// recording read in another zone would shift.
    static func iso8601(_ text: Substring) -> Timestamp? {
        iso8601(Array(text.utf8)[...])
    }

    static func iso8601(_ slice: ArraySlice<UInt8>) -> Timestamp? {
        let bytes = Array(slice)
        var index = 0
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(45), let month = number(2), expect(45), let day = number(2) else { return nil }
        guard index < bytes.count, bytes[index] == 84 || bytes[index] == 116 || bytes[index] == 32 else { return nil }
        index += 1
        guard let hour = number(2), expect(58), let minute = number(2), expect(58), let second = number(2) else { return nil }
        var nanos: Int64 = 0
        if index < bytes.count, bytes[index] == 46 || bytes[index] == 44 {
            index += 1
            var scale: Int64 = 100_000_000
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                nanos += Int64(bytes[index] - 48) * scale
                scale /= 10
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds: Int64 = 0
        switch bytes[index] {
        case 90, 122:
            index += 1
        case 43, 45:
            let sign: Int64 = bytes[index] == 45 ? -1 : 1
            index += 1
            guard let hours = number(2) else { return nil }
            _ = expect(58)
            guard let minutes = number(2) else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        return make(year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanos: nanos, offset: offsetSeconds)
    }

    /// nginx's `$time_local`: `10/Oct/2000:13:55:36 -0700`.
    static func nginxLocal(_ text: Substring) -> Timestamp? {
        nginxLocal(Array(text.utf8)[...])
    }

    static func nginxLocal(_ bytes: ArraySlice<UInt8>) -> Timestamp? {
        // dd/Mon/yyyy:hh:mm:ss +hhmm, 26 bytes.
        guard bytes.count == 26 else { return nil }
        let b = bytes.startIndex
        func number(_ offset: Int, _ digits: Int) -> Int64? {
            var value: Int64 = 0
            for index in (b + offset)..<(b + offset + digits) {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard bytes[b + 2] == 47, bytes[b + 6] == 47, bytes[b + 11] == 58, bytes[b + 14] == 58, bytes[b + 17] == 58,
            bytes[b + 20] == 32, bytes[b + 21] == 43 || bytes[b + 21] == 45,
            let day = number(0, 2), let year = number(7, 4), let hour = number(12, 2), let minute = number(15, 2),
            let second = number(18, 2), let zoneHours = number(22, 2), let zoneMinutes = number(24, 2)
        else { return nil }
        let name = bytes[(b + 3)..<(b + 6)]
        guard let month = monthNames.firstIndex(where: { $0.elementsEqual(name) }).map({ Int64($0 + 1) }) else { return nil }
        let offset = (bytes[b + 21] == 45 ? -1 : 1) * (zoneHours * 3600 + zoneMinutes * 60)
        return make(year: year, month: month, day: day, hour: hour, minute: minute, second: second, nanos: 0, offset: offset)
    }

    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }

    /// Seconds since 1970 with an optional fraction: `1700000000.123`.
    static func epochSeconds(_ text: Substring) -> Timestamp? {
        guard let seconds = decimalNanoseconds(text) else { return nil }
        return Timestamp(nanosecondsSince1970: seconds)
    }

    /// A non-negative decimal number of seconds (`0.250`) as nanoseconds.
    static func decimalNanoseconds(_ text: Substring) -> Int64? {
        decimalNanoseconds(text.utf8)
    }

    static func decimalNanoseconds<Bytes: Collection<UInt8>>(_ text: Bytes) -> Int64? {
        var whole: Int64 = 0
        var nanos: Int64 = 0
        var scale: Int64 = 100_000_000
        var seenDot = false
        var digits = 0
        for byte in text {
            if byte == 46, !seenDot {
                seenDot = true
                continue
            }
            guard byte >= 48, byte <= 57 else { return nil }
            digits += 1
            if seenDot {
                nanos += Int64(byte - 48) * scale
                scale /= 10
            } else {
                guard whole < Int64.max / 10_000_000_000 else { return nil }
                whole = whole * 10 + Int64(byte - 48)
            }
        }
        guard digits > 0 else { return nil }
        return whole * 1_000_000_000 + nanos
    }

    private static func make(
        year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, nanos: Int64, offset: Int64
    ) -> Timestamp? {
        guard (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        // A timestamp counts nanoseconds in 64 bits: it ends in 2262.
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (total, carried) = whole.addingReportingOverflow(nanos)
        return carried ? nil : Timestamp(nanosecondsSince1970: total)
    }

    /// Howard Hinnant's days-from-civil (proleptic Gregorian).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `2026-11-17T14:03:07.120Z`, for reports.
    static func format(_ time: Timestamp) -> String {
        let nanos = time.nanosecondsSince1970
        var seconds = nanos / 1_000_000_000
        var fraction = nanos % 1_000_000_000
        if fraction < 0 {
            seconds -= 1
            fraction += 1_000_000_000
        }
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            days -= 1
            rest += 86_400
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = fraction / 1_000_000
        let milliText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60)).\(milliText)Z"
    }
}
