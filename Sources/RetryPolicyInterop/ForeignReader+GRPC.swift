import RetryPolicyCore
import RetryPolicyYAML

/// gRPC's JSON reading: strings and numbers as its C core's JSON object
/// loader takes them.
extension ForeignReader {
    mutating func grpcObject(_ node: YAMLNode, _ what: String) -> Bool {
        if case .mapping = node { return true }
        error(.wrongType, node, "\(what): is not an object, found \(node.kindDescription)")
        return false
    }

    mutating func grpcArray(_ node: YAMLNode, _ what: String) -> Bool {
        if case .sequence = node { return true }
        error(.wrongType, node, "\(what): is not an array, found \(node.kindDescription)")
        return false
    }

    mutating func grpcString(_ node: YAMLNode, _ what: String) -> String? {
        if case .scalar(let scalar) = node, case .string(let text) = scalar.resolved { return text }
        error(.wrongType, node, "\(what): is not a string, found \(node.kindDescription)")
        return nil
    }

    mutating func grpcBool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .scalar(let scalar) = node, case .bool(let value) = scalar.resolved { return value }
        error(.wrongType, node, "\(what): is not a boolean, found \(node.kindDescription)")
        return nil
    }

    /// An integer written as a JSON number or a string of digits (gRPC
    /// takes both); a fraction, even `.0`, is refused as gRPC refuses it.
    mutating func grpcInteger(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int>, nonNegative: Bool = false) -> Int? {
        let failure = nonNegative ? "failed to parse non-negative number" : "failed to parse number"
        guard case .scalar(let scalar) = node else {
            error(.wrongType, node, "\(what): is not a number, found \(node.kindDescription)")
            return nil
        }
        var text: Substring
        switch scalar.resolved {
        case .integer, .oversizedInteger: text = Substring(scalar.value)
        case .string(let string): text = Substring(string)
        case .float:
            error(.invalidValue, node, "\(what): \(failure): expected a whole number, found \(scalar.value)")
            return nil
        default:
            error(.wrongType, node, "\(what): is not a number, found \(node.kindDescription)")
            return nil
        }
        text = text.drop { $0 == " " }
        if text.first == "+" { text = text.dropFirst() }
        var negative = false
        if text.first == "-" && !nonNegative {
            negative = true
            text = text.dropFirst()
        }
        guard !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let magnitude = Int(text.prefix(19)), text.count <= 19,
            range.contains(negative ? -magnitude : magnitude)
        else {
            error(.invalidValue, node, "\(what): \(failure): expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(String(scalar.value.prefix(40)))")
            return nil
        }
        return negative ? -magnitude : magnitude
    }

    /// A floating-point number, written as a JSON number or a string.
    mutating func grpcNumber(_ node: YAMLNode, _ what: String) -> Double? {
        guard case .scalar(let scalar) = node else {
            error(.wrongType, node, "\(what): is not a number, found \(node.kindDescription)")
            return nil
        }
        switch scalar.resolved {
        case .integer, .float:
            if let value = Double(scalar.value) { return value }
        case .string(let text):
            var trimmed = Substring(text).drop { $0 == " " }
            if trimmed.first == "+" { trimmed = trimmed.dropFirst() }
            if let value = Double(trimmed) { return value }
        default:
            error(.wrongType, node, "\(what): is not a number, found \(node.kindDescription)")
            return nil
        }
        error(.invalidValue, node, "\(what): failed to parse floating-point number, found \(String(scalar.value.prefix(40)))")
        return nil
    }

    /// A duration string (`"1.5s"`): at least one digit before an
    /// optional point, at most nine after it, an `s`, and at most
    /// 315,576,000,000 seconds (protobuf's range), as gRPC's C core reads
    /// it. `".5s"`, which grpc-go accepts, is refused there.
    mutating func grpcDuration(_ node: YAMLNode, _ what: String) -> Duration? {
        guard case .scalar(let scalar) = node, case .string(var text) = scalar.resolved else {
            error(.wrongType, node, "\(what): is not a string, found \(node.kindDescription)")
            return nil
        }
        text = String(Substring(text).drop { $0 == " " })
        if text.first == "+" { text.removeFirst() }
        let shown = String(scalar.value.prefix(40))
        guard text.hasSuffix("s") else {
            error(.invalidValue, node, "\(what): Not a duration (no s suffix): expected seconds such as \"0.1s\", found \"\(shown)\"")
            return nil
        }
        let number = text.dropLast()
        let whole = number.prefix { $0 != "." }
        if text.hasPrefix("-") || (whole.allSatisfy(\.isASCIIDigit) && whole.count > 12 && Int64(whole) == nil)
            || (Int64(whole).map { $0 > ForeignDuration.protoMaximumSeconds } ?? false)
        {
            error(.invalidValue, node, "\(what): seconds must be in the range [0, \(ForeignDuration.protoMaximumSeconds)], found \"\(shown)\"")
            return nil
        }
        guard let duration = ForeignDuration.parseProto(text) else {
            error(.invalidValue, node, "\(what): Not a duration: expected seconds with at most nine decimals and an s suffix such as \"0.1s\", found \"\(shown)\"")
            return nil
        }
        return duration
    }

    /// retryThrottling.tokenRatio as gRPC reads it: the number's text,
    /// whole part and at most three decimals (more are dropped), in
    /// thousandths; an exponent or a sign is not a number to it.
    mutating func grpcTokenRatio(_ node: YAMLNode) -> (thousandths: Int, truncated: Bool)? {
        let what = "retryThrottling.tokenRatio"
        guard case .scalar(let scalar) = node else {
            error(.wrongType, node, "\(what): is not a number, found \(node.kindDescription)")
            return nil
        }
        switch scalar.resolved {
        case .integer, .oversizedInteger, .float, .string: break
        default:
            error(.wrongType, node, "\(what): is not a number, found \(node.kindDescription)")
            return nil
        }
        let parts = scalar.value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let decimals = parts.count == 2 ? parts[1] : ""
        guard !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit), parts.count == 1 || !decimals.isEmpty, decimals.allSatisfy(\.isASCIIDigit),
            let wholeValue = Int(whole.prefix(19)), whole.count <= 19, wholeValue <= Int(UInt32.max)
        else {
            error(.invalidValue, node, "\(what): could not parse as a number: expected digits with an optional point, found \(String(scalar.value.prefix(40)))")
            return nil
        }
        var decimalValue = 0
        for position in 0..<3 {
            let digit = decimals.dropFirst(position).first.flatMap { $0.wholeNumberValue } ?? 0
            decimalValue = decimalValue * 10 + digit
        }
        let thousandths = wholeValue * 1000 + decimalValue
        guard thousandths > 0 else {
            error(.invalidValue, node, "\(what): must be greater than 0 (gRPC keeps three decimals), found \(String(scalar.value.prefix(40)))")
            return nil
        }
        return (thousandths, decimals.count > 3 && decimals.dropFirst(3).contains { $0 != "0" })
    }
}
