import RetryPolicyCore

/// A configuration document for another tool, in the order its fields are
/// written, rendered as JSON or as block YAML.
package indirect enum InteropValue: Sendable, Equatable {
    case object([Field])
    case array([InteropValue])
    case string(String)
    case int(Int)
    /// A number already spelt (`1.5`, `0.1`), written as it is.
    case number(String)
    case bool(Bool)

    package struct Field: Sendable, Equatable {
        package var key: String
        package var value: InteropValue
        package init(_ key: String, _ value: InteropValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value under `key` of an object.
    package subscript(key: String) -> InteropValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }

    /// JSON, two-space indented, keys in order.
    package func json(indent: Int = 0) -> String {
        let pad = String(repeating: " ", count: indent)
        let inner = String(repeating: " ", count: indent + 2)
        switch self {
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            return "{\n" + fields.map { inner + Self.quoted($0.key) + ": " + $0.value.json(indent: indent + 2) }
                .joined(separator: ",\n") + "\n" + pad + "}"
        case .array(let items):
            if items.isEmpty { return "[]" }
            if items.allSatisfy(\.isScalar) { return "[" + items.map { $0.json() }.joined(separator: ", ") + "]" }
            return "[\n" + items.map { inner + $0.json(indent: indent + 2) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .string(let text): return Self.quoted(text)
        case .int(let value): return "\(value)"
        case .number(let text): return text
        case .bool(let value): return value ? "true" : "false"
        }
    }

    /// Block YAML (strings double-quoted, so no value changes type).
    package func yaml() -> String {
        var lines: [String] = []
        Self.yamlLines(self, indent: 0, into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    var isScalar: Bool {
        switch self {
        case .object, .array: false
        default: true
        }
    }

    private static func yamlLines(_ value: InteropValue, indent: Int, into lines: inout [String]) {
        let pad = String(repeating: " ", count: indent)
        switch value {
        case .object(let fields):
            for field in fields {
                switch field.value {
                case .object(let inner) where !inner.isEmpty:
                    lines.append(pad + Self.yamlKey(field.key) + ":")
                    yamlLines(field.value, indent: indent + 2, into: &lines)
                case .array(let items) where !items.isEmpty && !items.allSatisfy(\.isScalar):
                    lines.append(pad + Self.yamlKey(field.key) + ":")
                    for item in items {
                        var itemLines: [String] = []
                        yamlLines(item, indent: indent + 4, into: &itemLines)
                        if let first = itemLines.first {
                            lines.append(pad + "  - " + first.dropFirst(indent + 4))
                            lines.append(contentsOf: itemLines.dropFirst())
                        }
                    }
                default:
                    lines.append(pad + Self.yamlKey(field.key) + ": " + field.value.json())
                }
            }
        default:
            lines.append(pad + value.json())
        }
    }

    static func quoted(_ text: String) -> String { QuotedText.doubleQuoted(text) }

    /// A key as block YAML writes it: bare when it is a plain identifier
    /// (`retry_policy`, `apiVersion`), quoted otherwise (`"@type"`, whose
    /// `@` YAML reserves).
    static func yamlKey(_ key: String) -> String {
        let plain = key.utf8.first.map { $0 == UInt8(ascii: "_") || ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") } ?? false
            && key.utf8.allSatisfy { byte in
                let lower = byte | 0x20
                return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
        return plain ? key : quoted(key)
    }
}
