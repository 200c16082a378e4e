/// The duration syntax of policy files: `250ms`, `10s`, `1m30s`, `1.5s`,
/// `2h`.
///
/// Lives in the core so the loader, the CLI and every message format
/// durations the same way; a bare number is rejected because `10` could mean
/// seconds or milliseconds and a wrong guess is off by a factor of 1,000.
package enum DurationText {
    /// Why a text is not a duration.
    package enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        case empty
        case missingUnit
        case negative
        case unknownUnit(String)
        case unitOrder
        case malformedNumber
        case overflow
        case finerThanNanoseconds

        package var description: String {
            switch self {
            case .empty: "an empty duration"
            case .missingUnit: "a number without a unit (write 10s or 250ms)"
            case .negative: "a negative duration"
            case .unknownUnit(let unit): "unknown unit '\(unit)' (use h, m, s or ms)"
            case .unitOrder: "units out of order or repeated (write 1m30s)"
            case .malformedNumber: "a malformed number"
            case .overflow: "a duration too large to represent"
            case .finerThanNanoseconds: "more decimals than a nanosecond needs (at most 9, or 6 for ms)"
            }
        }
    }

    /// The largest duration a policy may state: 100 days. Longer values are
    /// certainly mistakes and would overflow arithmetic downstream.
    package static let maximum: Duration = .seconds(100 * 24 * 3600)

    /// Parses `text` strictly.
    ///
    /// A number is judged by its value, never by how many digits spell it:
    /// `0000000001s` is one second, and anything over ``maximum`` is
    /// ``ParseError/overflow`` however it is written. Fractions may go down
    /// to a nanosecond and no further (9 decimals for h, m and s, 6 for ms),
    /// so every duration that can be written is exact and a non-zero digit
    /// always means a duration above zero. The arithmetic is in whole
    /// nanoseconds; nothing is rounded.
    package static func parse(_ text: some StringProtocol) -> Result<Duration, ParseError> {
        let bytes = Array(text.utf8)
        if bytes.isEmpty { return .failure(.empty) }
        if bytes[0] == UInt8(ascii: "-") { return .failure(.negative) }
        let limit = maximum.components.seconds * 1_000_000_000
        var index = 0
        var total: Int64 = 0
        var lastUnitRank = Int.max
        while index < bytes.count {
            // number: digits, optional '.' digits
            let numberStart = index
            var sawDigit = false
            var dot: Int?
            while index < bytes.count {
                let byte = bytes[index]
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    sawDigit = true
                } else if byte == UInt8(ascii: ".") && dot == nil {
                    dot = index
                } else {
                    break
                }
                index += 1
            }
            if !sawDigit { return .failure(.malformedNumber) }
            if bytes[index - 1] == UInt8(ascii: ".") || bytes[numberStart] == UInt8(ascii: ".") {
                return .failure(.malformedNumber)
            }
            let integerDigits = bytes[numberStart..<(dot ?? index)]
            let fractionDigits = dot.map { bytes[($0 + 1)..<index] } ?? []
            let unitStart = index
            while index < bytes.count,
                (bytes[index] >= UInt8(ascii: "a") && bytes[index] <= UInt8(ascii: "z"))
                    || (bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z"))
            {
                index += 1
            }
            if unitStart == index {
                return .failure(index == bytes.count ? .missingUnit : .unknownUnit(String(decoding: bytes[index...], as: UTF8.self)))
            }
            let unit = String(decoding: bytes[unitStart..<index], as: UTF8.self)
            let rank: Int
            let nanoseconds: Int64
            let decimals: Int
            switch unit {
            case "h": rank = 3; nanoseconds = 3_600_000_000_000; decimals = 9
            case "m": rank = 2; nanoseconds = 60_000_000_000; decimals = 9
            case "s": rank = 1; nanoseconds = 1_000_000_000; decimals = 9
            case "ms": rank = 0; nanoseconds = 1_000_000; decimals = 6
            default: return .failure(.unknownUnit(unit))
            }
            if rank >= lastUnitRank { return .failure(.unitOrder) }
            lastUnitRank = rank
            if fractionDigits.count > decimals { return .failure(.finerThanNanoseconds) }
            // The whole part, leading zeros skipped; past the limit it is an
            // overflow whatever follows.
            var whole: Int64 = 0
            for byte in integerDigits {
                whole = whole * 10 + Int64(byte - UInt8(ascii: "0"))
                if whole > limit / nanoseconds { return .failure(.overflow) }
            }
            // The fraction, in units of nanoseconds / 10^decimals (exact:
            // 10^decimals divides every unit's nanoseconds).
            var fraction: Int64 = 0
            for position in 0..<decimals {
                let digit = position < fractionDigits.count ? Int64(fractionDigits[fractionDigits.startIndex + position] - UInt8(ascii: "0")) : 0
                fraction = fraction * 10 + digit
            }
            var scale: Int64 = 1
            for _ in 0..<decimals { scale *= 10 }
            total += whole * nanoseconds + fraction * (nanoseconds / scale)
            if total > limit { return .failure(.overflow) }
        }
        return .success(.nanoseconds(total))
    }

    /// Formats a duration in the policy syntax, choosing the shortest exact
    /// spelling: `0s`, `250ms`, `1.5s`, `1m30s`, `2h`.
    package static func format(_ duration: Duration) -> String {
        let totalNanoseconds = duration.nanosecondsSaturated
        if totalNanoseconds < 0 { return "-" + format(.nanoseconds(-totalNanoseconds)) }
        if totalNanoseconds == 0 { return "0s" }
        let milliseconds = totalNanoseconds / 1_000_000
        let subMillisecond = totalNanoseconds % 1_000_000
        if subMillisecond != 0 {
            let seconds = Double(totalNanoseconds) / 1e9
            return trimmed(seconds) + "s"
        }
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        var remaining = milliseconds
        var text = ""
        let hours = remaining / 3_600_000
        remaining %= 3_600_000
        let minutes = remaining / 60_000
        remaining %= 60_000
        if hours > 0 { text += "\(hours)h" }
        if minutes > 0 { text += "\(minutes)m" }
        if remaining > 0 {
            if remaining % 1000 == 0 {
                text += "\(remaining / 1000)s"
            } else if hours == 0 && minutes == 0 {
                text += trimmed(Double(remaining) / 1000) + "s"
            } else {
                text += "\(remaining / 1000)s\(remaining % 1000)ms"
            }
        }
        return text
    }

    private static func trimmed(_ value: Double) -> String {
        NumberText.decimal(Int64((value * 1000).rounded()), fractionDigits: 3)
    }

    /// `scaled` divided by 10^`fractionDigits`, written as a decimal
    /// without trailing zeros and without Foundation: `decimal(1500,
    /// fractionDigits: 3)` is `1.5`, `decimal(30_000, fractionDigits: 3)` is
    /// `30`. For a non-negative `scaled`.
    package static func decimal(_ scaled: Int64, fractionDigits: Int) -> String {
        NumberText.decimal(scaled, fractionDigits: fractionDigits)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating instead of trapping so
    /// that hostile values can never crash a decision.
    @inlinable
    package var nanosecondsSaturated: Int64 {
        // Below about 9.2 s either way the attosecond count fits in 64 bits
        // (the high word is the low word's sign), and truncating it to
        // nanoseconds is one 64-bit division instead of the 128-bit
        // arithmetic behind `components`; the result is the same. Backoff
        // and request times are converted on every retry.
        if _high == Int64(bitPattern: _low) >> 63 { return Int64(bitPattern: _low) / 1_000_000_000 }
        // Up to about 292 years the nanosecond count of a positive duration
        // fits in 63 bits: one 128-by-64-bit division gives it.
        if _high >= 0, _high < 500_000_000 {
            return Int64(UInt64(1_000_000_000).dividingFullWidth((high: UInt64(_high), low: _low)).quotient)
        }
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? Int64.min : Int64.max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? Int64.min : Int64.max }
        return sum
    }

    /// Milliseconds as a Double, for reports.
    package var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// The duration in the policy file syntax (`1m30s`).
    package var formattedForHumans: String { DurationText.format(self) }
}
