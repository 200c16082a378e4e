import RetryPolicyCore

/// Duration spellings of the other formats.
enum ForeignDuration {
    /// A protobuf `Duration` in its JSON form (`"0.1s"`, `"30s"`): seconds
    /// with up to nine decimals and an `s` suffix (gRPC and Envoy).
    static func protoText(_ duration: Duration) -> String {
        DurationText.decimal(duration.nanosecondsSaturated, fractionDigits: 9) + "s"
    }

    /// Parses a protobuf JSON Duration (`"1.5s"`, `"-1s"` is refused here).
    static func parseProto(_ text: String) -> Duration? {
        guard text.hasSuffix("s"), text.count >= 2 else { return nil }
        let number = text.dropLast()
        return parseSeconds(number)
    }

    /// Decimal seconds (`1.5`) to a duration.
    static func parseSeconds(_ number: Substring) -> Duration? {
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit),
            whole.count <= 12
        else { return nil }
        var nanos = Int64(whole)! * 1_000_000_000
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCIIDigit) else { return nil }
            var value = Int64(fraction)!
            for _ in fraction.count..<9 { value *= 10 }
            nanos += value
        }
        return .nanoseconds(nanos)
    }

    /// A Go/Istio duration (`2s`, `25ms`, `1m30s`, `1.5s`, `100us`), or a
    /// protobuf one.
    static func parseGo(_ text: String) -> Duration? {
        var total: Int64 = 0
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        if rest == "0" { return .zero }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCIIDigit || $0 == "." }
            guard !number.isEmpty else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter || $0 == "µ" }
            rest = rest.dropFirst(unit.count)
            let scale: Int64
            switch unit {
            case "h": scale = 3_600_000_000_000
            case "m": scale = 60_000_000_000
            case "s": scale = 1_000_000_000
            case "ms": scale = 1_000_000
            case "us", "µs": scale = 1_000
            case "ns": scale = 1
            default: return nil
            }
            guard let seconds = parseSeconds(number) else { return nil }
            let nanos = Double(seconds.nanosecondsSaturated) / 1e9 * Double(scale)
            guard nanos < 1e17 else { return nil }
            total += Int64(nanos.rounded())
        }
        return .nanoseconds(total)
    }

    /// A Spring Boot / resilience4j duration: `500ms`, `10s`, `2m`, ISO-8601
    /// `PT0.5S`, or a bare number of milliseconds.
    static func parseSpring(_ text: String) -> Duration? {
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit), text.count <= 15 { return .milliseconds(Int64(text)!) }
        let upper = text.uppercased()
        if upper.hasPrefix("PT") {
            var total: Int64 = 0
            var rest = upper.dropFirst(2)
            guard !rest.isEmpty else { return nil }
            while !rest.isEmpty {
                let number = rest.prefix { $0.isASCIIDigit || $0 == "." }
                guard !number.isEmpty, let unit = rest.dropFirst(number.count).first,
                    let seconds = parseSeconds(number) else { return nil }
                rest = rest.dropFirst(number.count + 1)
                let factor: Int64
                switch unit {
                case "H": factor = 3600
                case "M": factor = 60
                case "S": factor = 1
                default: return nil
                }
                total += seconds.nanosecondsSaturated * factor
            }
            return .nanoseconds(total)
        }
        // Spring's simple format: a number and one of ns, us, ms, s, m, h, d.
        let number = text.prefix { $0.isASCIIDigit }
        let unit = text.dropFirst(number.count)
        guard !number.isEmpty, number.count <= 12, let value = Int64(number) else { return nil }
        switch unit {
        case "ns": return .nanoseconds(value)
        case "us": return .microseconds(value)
        case "ms": return .milliseconds(value)
        case "s": return .seconds(value)
        case "m": return .seconds(value * 60)
        case "h": return .seconds(value * 3600)
        case "d": return .seconds(value * 86400)
        default: return nil
        }
    }

    /// The duration rounded to whole milliseconds (the policy format's
    /// finest unit), and whether rounding changed it.
    static func policyPrecision(_ duration: Duration) -> (Duration, rounded: Bool) {
        let nanos = duration.nanosecondsSaturated
        let millis = (nanos + 500_000) / 1_000_000
        let result = Duration.milliseconds(millis)
        return (result, result != duration)
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
