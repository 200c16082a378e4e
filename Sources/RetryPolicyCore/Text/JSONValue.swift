/// A JSON document with ordered keys, so that machine-readable output is
/// byte-for-byte stable (tests and diffs of reports depend on it).
public indirect enum JSONValue: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.rendered() == rhs.rendered() }
    public func hash(into hasher: inout Hasher) { hasher.combine(rendered()) }

    /// `value` or `null`.
    package static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    package static func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }

    /// A duration in milliseconds: whole ones as an integer, fractions as a
    /// number.
    package static func milliseconds(_ duration: Duration) -> JSONValue {
        let value = duration.milliseconds
        return value == value.rounded() ? .int(Int(value)) : .double(value)
    }

    /// Pretty-printed with two-space indentation, or compact on one line.
    public func rendered(pretty: Bool = true) -> String {
        var output = ""
        write(to: &output, indent: pretty ? 0 : nil)
        return output
    }

    private func write(to output: inout String, indent: Int?) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value):
            output += value.isFinite ? NumberText.number(value) : "null"
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            if values.isEmpty { output += "[]"; return }
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                if let indent { output += "\n" + String(repeating: "  ", count: indent + 1) }
                value.write(to: &output, indent: indent.map { $0 + 1 })
            }
            if let indent { output += "\n" + String(repeating: "  ", count: indent) }
            output += "]"
        case .object(let members):
            if members.isEmpty { output += "{}"; return }
            output += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output += "," }
                if let indent { output += "\n" + String(repeating: "  ", count: indent + 1) }
                Self.writeString(key, to: &output)
                output += indent == nil ? ":" : ": "
                value.write(to: &output, indent: indent.map { $0 + 1 })
            }
            if let indent { output += "\n" + String(repeating: "  ", count: indent) }
            output += "}"
        }
    }

    /// Besides what JSON requires, the characters `DisplayText` escapes
    /// (DEL and C1 controls, line and paragraph separators, bidirectional
    /// controls, the byte order mark) and the `[` of a `##[` are written as
    /// `\u` escapes: a JSON reader gets the exact text back, and the
    /// document printed on a terminal or in a CI log holds nothing that
    /// steers either. (A `::` inside a string never starts a line.)
    private static func writeString(_ value: String, to output: inout String) {
        output += "\""
        var previous: (Unicode.Scalar, Unicode.Scalar) = (" ", " ")
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || DisplayText.isUnsafe(scalar) || (scalar == "[" && previous == ("#", "#")):
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
            previous = (previous.1, scalar)
        }
        output += "\""
    }
}
