import RetryPolicyCore

/// A scalar as written, with what it means under the YAML 1.2 core schema.
public struct YAMLScalar: Hashable, Sendable {
    /// How the scalar was written; only plain scalars are resolved to
    /// numbers, booleans and null.
    public enum Style: String, Hashable, Sendable {
        case plain
        case singleQuoted
        case doubleQuoted
        case literal
        case folded
    }

    /// The scalar's text after YAML unescaping.
    public var value: String
    public var location: SourceLocation
    public var style: Style
    /// The explicit core-schema tag (`!!str`, `!!int`...), if one was
    /// written.
    public var tag: CoreTag?

    public init(value: String, location: SourceLocation, style: Style = .plain, tag: CoreTag? = nil) {
        self.value = value
        self.location = location
        self.style = style
        self.tag = tag
    }

    /// Whether the scalar was quoted (or a block scalar): such a scalar is
    /// always a string unless tagged, so `"429"` is text, not a number.
    package var isQuoted: Bool { style != .plain }

    /// The value under the YAML 1.2 core schema (the schema yaml-language-
    /// server uses): plain `true`, `12`, `1.5`, `null` are typed, quoted
    /// scalars are strings, and an explicit tag forces its type.
    public var resolved: YAMLValue {
        if let tag {
            switch tag {
            case .string: return .string(value)
            case .null: return CoreSchema.null(value) ? .null : .invalid(tag)
            case .bool: return CoreSchema.bool(value).map(YAMLValue.bool) ?? .invalid(tag)
            case .int: return CoreSchema.integer(value) ?? .invalid(tag)
            case .float:
                if case .integer(let int) = CoreSchema.integer(value) { return .float(Double(int)) }
                return CoreSchema.float(value).map(YAMLValue.float) ?? .invalid(tag)
            case .map, .seq: return .invalid(tag)
            }
        }
        if isQuoted { return .string(value) }
        if CoreSchema.null(value) { return .null }
        if let bool = CoreSchema.bool(value) { return .bool(bool) }
        if let integer = CoreSchema.integer(value) { return integer }
        if let float = CoreSchema.float(value) { return .float(float) }
        return .string(value)
    }

    /// What the scalar is, for "found ..." in messages.
    package var kindDescription: String {
        switch resolved {
        case .null: "null"
        case .bool(let bool): "the boolean \(bool)"
        case .integer(let int): "the integer \(int)"
        case .oversizedInteger: "the integer \(Self.abbreviated(value)) (too large)"
        case .float(let float): "the number \(Self.abbreviated(String(float)))"
        case .string(let text): isQuoted ? "the quoted string \"\(Self.abbreviated(text))\"" : "the string '\(Self.abbreviated(text))'"
        case .invalid(let tag): "'\(Self.abbreviated(value))', which is not a valid \(tag.shorthand)"
        }
    }

    /// At most 40 characters of `text`, so a hostile value cannot flood a
    /// message.
    package static func abbreviated(_ text: String) -> String {
        text.count <= 40 ? text : String(text.prefix(37)) + "..."
    }
}

/// A scalar's meaning under the YAML 1.2 core schema.
public enum YAMLValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int)
    /// An integer that does not fit 64 bits.
    case oversizedInteger
    case float(Double)
    case string(String)
    /// Text that does not match its explicit tag (`!!int abc`).
    case invalid(CoreTag)
}

/// The tags of the YAML 1.2 core schema, the only ones accepted.
public enum CoreTag: String, Hashable, Sendable, CaseIterable {
    case string = "tag:yaml.org,2002:str"
    case int = "tag:yaml.org,2002:int"
    case bool = "tag:yaml.org,2002:bool"
    case null = "tag:yaml.org,2002:null"
    case float = "tag:yaml.org,2002:float"
    case map = "tag:yaml.org,2002:map"
    case seq = "tag:yaml.org,2002:seq"

    /// `!!str`, as people write it.
    package var shorthand: String { "!!" + rawValue.dropFirst("tag:yaml.org,2002:".count) }

    var isScalarTag: Bool { self != .map && self != .seq }
}

/// The resolution rules of YAML 1.2.2 §10.3.2 (core schema), by hand and
/// without regular expressions so that they cost nothing and cannot
/// backtrack.
enum CoreSchema {
    static func null(_ text: String) -> Bool {
        text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    /// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`.
    static func integer(_ text: String) -> YAMLValue? {
        // A word (the common case) is not copied into bytes below.
        guard let first = text.utf8.first,
            (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) || first == UInt8(ascii: "-") || first == UInt8(ascii: "+")
        else { return nil }
        let bytes = Array(text.utf8)
        if bytes.count > 2 && bytes[0] == UInt8(ascii: "0") && (bytes[1] == UInt8(ascii: "o") || bytes[1] == UInt8(ascii: "x")) {
            let radix = bytes[1] == UInt8(ascii: "o") ? 8 : 16
            let digits = bytes[2...]
            guard digits.allSatisfy({ digitValue($0).map { $0 < radix } ?? false }) else { return nil }
            return accumulate(digits, radix: radix, negative: false)
        }
        var digits = bytes[...]
        var negative = false
        if bytes[0] == UInt8(ascii: "-") || bytes[0] == UInt8(ascii: "+") {
            negative = bytes[0] == UInt8(ascii: "-")
            digits = bytes[1...]
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return accumulate(digits, radix: 10, negative: negative)
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A")) + 10
        default: nil
        }
    }

    private static func accumulate(_ digits: ArraySlice<UInt8>, radix: Int, negative: Bool) -> YAMLValue {
        var value = 0
        for byte in digits {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: radix)
            let (sum, overflow2) = shifted.addingReportingOverflow(digitValue(byte)!)
            if overflow1 || overflow2 { return .oversizedInteger }
            value = sum
        }
        return .integer(negative ? -value : value)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`,
    /// `[-+]?\.(inf|Inf|INF)`, `\.nan|\.NaN|\.NAN`.
    static func float(_ text: String) -> Double? {
        // Every float starts with a digit, a sign or a dot; a word never
        // needs the byte copy below.
        guard let first = text.utf8.first,
            (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9")) || first == UInt8(ascii: "-")
                || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
        else { return nil }
        switch text {
        case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
        case "-.inf", "-.Inf", "-.INF": return -.infinity
        case ".nan", ".NaN", ".NAN": return .nan
        default: break
        }
        let bytes = Array(text.utf8)
        var index = 0
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) { index += 1 }
        var mantissaDigits = 0
        while isDigit(index) { index += 1; mantissaDigits += 1 }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            var fractionDigits = 0
            while isDigit(index) { index += 1; fractionDigits += 1 }
            if mantissaDigits == 0 && fractionDigits == 0 { return nil }
        } else if mantissaDigits == 0 {
            return nil
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) { index += 1 }
            guard isDigit(index) else { return nil }
            while isDigit(index) { index += 1 }
        }
        guard index == bytes.count else { return nil }
        // Swift's parser wants a digit before '.', and "1." is fine for it.
        var normalized = text
        if let dot = normalized.firstIndex(of: "."),
            dot == normalized.startIndex || !(normalized[normalized.index(before: dot)].isNumber)
        {
            normalized.insert("0", at: dot)
        }
        return Double(normalized)
    }
}
