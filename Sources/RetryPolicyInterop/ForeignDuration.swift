import RetryPolicyCore

/// Duration spellings of the other formats.
///
/// Every parser here works in whole nanoseconds with saturating
/// arithmetic: a value too large for 64-bit nanoseconds (about 292 years)
/// is held at ``ceiling`` instead of overflowing, and the importers clamp
/// anything above the policy format's ``DurationText/maximum`` with a
/// warning. A foreign file can therefore make a duration large, never make
/// the process trap.
enum ForeignDuration {
    /// Where parsed durations saturate: `Int64.max` nanoseconds.
    static let ceiling: Duration = .nanoseconds(Int64.max)

    /// A protobuf `Duration` in its JSON form (`"0.1s"`, `"30s"`): seconds
    /// with up to nine decimals and an `s` suffix (gRPC and Envoy).
    static func protoText(_ duration: Duration) -> String {
        DurationText.decimal(duration.nanosecondsSaturated, fractionDigits: 9) + "s"
    }

    /// The largest protobuf `Duration`: 10,000 years in seconds
    /// (google/protobuf/duration.proto). Larger values are not durations
    /// to protobuf's JSON parser.
    static let protoMaximumSeconds: Int64 = 315_576_000_000

    /// Parses a protobuf JSON Duration (`"1.5s"`). Negative durations are
    /// refused here (no retry setting takes one); so is anything past
    /// protobuf's own range.
    static func parseProto(_ text: String) -> Duration? {
        guard text.hasSuffix("s"), text.count >= 2 else { return nil }
        let number = text.dropLast()
        let whole = number.prefix { $0 != "." }
        guard let seconds = Int64(whole), seconds <= protoMaximumSeconds else { return nil }
        return parseSeconds(number, maxFractionDigits: 9)
    }

    /// Decimal seconds (`1.5`) to a duration, saturating at ``ceiling``.
    /// Digits after `maxFractionDigits` decimals are refused (protobuf
    /// allows nine); with `nil`, digits past a nanosecond are dropped (Go).
    static func parseSeconds(_ number: Substring, maxFractionDigits: Int? = 9) -> Duration? {
        parseScaled(number, scale: 1_000_000_000, maxFractionDigits: maxFractionDigits).map(Duration.nanoseconds)
    }

    /// `number` (digits, optionally `.` and digits) times `scale`
    /// nanoseconds, saturating at `Int64.max`.
    static func parseScaled(_ number: Substring, scale: Int64, maxFractionDigits: Int?) -> Int64? {
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit) else { return nil }
        var nanos: Int64 = 0
        for digit in whole.utf8 {
            nanos = saturating(saturating(nanos, times: 10), plus: Int64(digit - UInt8(ascii: "0")))
        }
        nanos = saturating(nanos, times: scale)
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
            if let maxFractionDigits, fraction.count > maxFractionDigits { return nil }
            // Only the digits that can matter at nanosecond precision are
            // read: 18 keep the value exact below Int64.max.
            let kept = fraction.prefix(18)
            var value: Int64 = 0
            for digit in kept.utf8 { value = value * 10 + Int64(digit - UInt8(ascii: "0")) }
            var divisor: Int64 = 1
            for _ in 0..<kept.count { divisor *= 10 }
            // value / divisor < 1, so the product is below `scale`.
            let part = Int64((Double(value) / Double(divisor) * Double(scale)).rounded(.down))
            nanos = saturating(nanos, plus: part)
        }
        return nanos
    }

    /// A Go/Istio duration (`2s`, `25ms`, `1m30s`, `1.5s`, `100us`).
    static func parseGo(_ text: String) -> Duration? {
        var total: Int64 = 0
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        if rest == "0" { return .zero }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCIIDigit || $0 == "." }
            guard !number.isEmpty else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter || $0 == "µ" || $0 == "μ" }
            rest = rest.dropFirst(unit.count)
            let scale: Int64
            switch unit {
            case "h": scale = 3_600_000_000_000
            case "m": scale = 60_000_000_000
            case "s": scale = 1_000_000_000
            case "ms": scale = 1_000_000
            case "us", "µs", "μs": scale = 1_000
            case "ns": scale = 1
            default: return nil
            }
            guard let nanos = parseScaled(number, scale: scale, maxFractionDigits: nil) else { return nil }
            total = saturating(total, plus: nanos)
        }
        return .nanoseconds(total)
    }

    /// A Spring Boot / resilience4j duration: `500ms`, `10s`, `2m`, ISO-8601
    /// `PT0.5S` or `P1DT2H`, or a bare number of milliseconds.
    static func parseSpring(_ text: String) -> Duration? {
        var text = Substring(text)
        if text.first == "+" { text = text.dropFirst() }
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit) {
            return parseScaled(text, scale: 1_000_000, maxFractionDigits: 0).map(Duration.nanoseconds)
        }
        let upper = text.uppercased()
        if upper.hasPrefix("P") { return parseISO8601(Substring(upper.dropFirst())) }
        // Spring's simple format: an integer and one of ns, us, ms, s, m, h,
        // d, in any case (DurationStyle.SIMPLE).
        let number = text.prefix { $0.isASCIIDigit }
        let unit = text.dropFirst(number.count).lowercased()
        guard !number.isEmpty else { return nil }
        let scale: Int64
        switch unit {
        case "ns": scale = 1
        case "us": scale = 1_000
        case "ms": scale = 1_000_000
        case "s": scale = 1_000_000_000
        case "m": scale = 60_000_000_000
        case "h": scale = 3_600_000_000_000
        case "d": scale = 86_400_000_000_000
        default: return nil
        }
        return parseScaled(number, scale: scale, maxFractionDigits: 0).map(Duration.nanoseconds)
    }

    /// The part of an ISO-8601 duration after `P` (`T0.5S`, `1DT2H`), as
    /// java.time.Duration.parse reads it: days, then `T` and hours,
    /// minutes, seconds, each at most once and in that order.
    private static func parseISO8601(_ body: Substring) -> Duration? {
        var rest = body
        var total: Int64 = 0
        var sawPart = false
        var inTime = false
        var lastRank = -1
        while !rest.isEmpty {
            if rest.first == "T" {
                guard !inTime else { return nil }
                inTime = true
                rest = rest.dropFirst()
                guard !rest.isEmpty else { return nil }
                continue
            }
            let number = rest.prefix { $0.isASCIIDigit || $0 == "." }
            guard !number.isEmpty, let unit = rest.dropFirst(number.count).first else { return nil }
            rest = rest.dropFirst(number.count + 1)
            let (rank, scale): (Int, Int64)
            switch (unit, inTime) {
            case ("D", false): (rank, scale) = (0, 86_400_000_000_000)
            case ("H", true): (rank, scale) = (1, 3_600_000_000_000)
            case ("M", true): (rank, scale) = (2, 60_000_000_000)
            case ("S", true): (rank, scale) = (3, 1_000_000_000)
            default: return nil
            }
            guard rank > lastRank, rank == 3 || !number.contains(".") else { return nil }
            lastRank = rank
            guard let nanos = parseScaled(number, scale: scale, maxFractionDigits: 9) else { return nil }
            total = saturating(total, plus: nanos)
            sawPart = true
        }
        return sawPart ? .nanoseconds(total) : nil
    }

    /// The duration rounded to whole milliseconds (the policy format's
    /// finest unit), and whether rounding changed it.
    static func policyPrecision(_ duration: Duration) -> (Duration, rounded: Bool) {
        let nanos = duration.nanosecondsSaturated
        let millis = nanos / 1_000_000 + (nanos % 1_000_000 >= 500_000 ? 1 : 0)
        let result = Duration.milliseconds(millis)
        return (result, result != duration)
    }

    static func saturating(_ lhs: Int64, plus rhs: Int64) -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        return overflow ? (rhs < 0 ? .min : .max) : sum
    }

    static func saturating(_ lhs: Int64, times rhs: Int64) -> Int64 {
        let (product, overflow) = lhs.multipliedReportingOverflow(by: rhs)
        return overflow ? ((lhs < 0) != (rhs < 0) ? .min : .max) : product
    }

    /// `duration` scaled by a factor read from a foreign file, saturating
    /// at ``ceiling`` (and at zero for factors that are not positive).
    static func scaled(_ duration: Duration, by factor: Double) -> Duration {
        let value = Double(duration.nanosecondsSaturated) * factor
        guard value.isFinite, value > 0 else { return value == .infinity ? ceiling : .zero }
        return value >= Double(Int64.max) ? ceiling : .nanoseconds(Int64(value))
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
