/// A parsed JSON value, as much as a recording needs: JSONL lines and HAR
/// entries are read through it. Numbers keep their text, so that a
/// millisecond count or a status is read exactly.
enum JSONNode: Sendable {
    case null
    case bool(Bool)
    case number(Substring)
    case string(String)
    case array([JSONNode])
    case object([String: JSONNode])

    subscript(key: String) -> JSONNode? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var array: [JSONNode]? { if case .array(let value) = self { value } else { nil } }
    var isObject: Bool { if case .object = self { true } else { false } }
    var numberText: Substring? { if case .number(let value) = self { value } else { nil } }

    /// Where a document stopped being JSON: the byte offset into it and
    /// what was expected there.
    struct SyntaxError: Error, Sendable {
        var offset: Int
        var expected: String
    }

    /// Parses one complete JSON value (whitespace around it allowed).
    static func parse(_ bytes: ArraySlice<UInt8>) throws(SyntaxError) -> JSONNode {
        var parser = Parser(bytes: bytes, index: bytes.startIndex)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.endIndex else {
            throw SyntaxError(offset: parser.index - bytes.startIndex, expected: "the end of the value")
        }
        return value
    }

    /// Nesting deeper than this is refused rather than risking the stack.
    static let maximumDepth = 64

    private struct Parser {
        let bytes: ArraySlice<UInt8>
        var index: Int

        mutating func skipSpace() {
            while index < bytes.endIndex {
                switch bytes[index] {
                case 32, 9, 10, 13: index += 1
                default: return
                }
            }
        }

        func fail(_ expected: String) -> SyntaxError {
            SyntaxError(offset: index - bytes.startIndex, expected: expected)
        }

        mutating func value(depth: Int) throws(SyntaxError) -> JSONNode {
            guard depth < JSONNode.maximumDepth else { throw fail("at most \(JSONNode.maximumDepth) levels of nesting") }
            guard index < bytes.endIndex else { throw fail("a value") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [String: JSONNode] = [:]
                skipSpace()
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { throw fail("a member name in double quotes") }
                    let key = try string()
                    skipSpace()
                    guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") else { throw fail("':' after a member name") }
                    index += 1
                    skipSpace()
                    members[key] = try value(depth: depth + 1)
                    skipSpace()
                    guard index < bytes.endIndex else { throw fail("',' or '}'") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    guard bytes[index] == UInt8(ascii: "}") else { throw fail("',' or '}'") }
                    index += 1
                    return .object(members)
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [JSONNode] = []
                skipSpace()
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                while true {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                    skipSpace()
                    guard index < bytes.endIndex else { throw fail("',' or ']'") }
                    if bytes[index] == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    guard bytes[index] == UInt8(ascii: "]") else { throw fail("',' or ']'") }
                    index += 1
                    return .array(elements)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                index += 1
                while index < bytes.endIndex {
                    switch bytes[index] {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"),
                        UInt8(ascii: "+"), UInt8(ascii: "-"):
                        index += 1
                    default:
                        return .number(Substring(decoding: bytes[start..<index], as: UTF8.self))
                    }
                }
                return .number(Substring(decoding: bytes[start..<index], as: UTF8.self))
            default:
                throw fail("a JSON value (object, array, string, number, true, false or null)")
            }
        }

        mutating func literal(_ word: String) throws(SyntaxError) {
            let count = word.utf8.count
            guard index + count <= bytes.endIndex, bytes[index..<index + count].elementsEqual(word.utf8) else {
                throw fail("'\(word)'")
            }
            index += count
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            let start = index
            var plain = true
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    if plain {
                        let text = String(decoding: bytes[start..<index], as: UTF8.self)
                        index += 1
                        return text
                    }
                    break
                }
                if byte == UInt8(ascii: "\\") {
                    plain = false
                    index += 2
                    continue
                }
                if byte < 0x20 { throw fail("a closing '\"' (control characters must be escaped)") }
                index += 1
            }
            guard !plain || index < bytes.endIndex else { throw fail("a closing '\"'") }
            // Escapes: decode from the start again.
            index = start
            var output: [UInt8] = []
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return String(decoding: output, as: UTF8.self)
                }
                if byte != UInt8(ascii: "\\") {
                    if byte < 0x20 { throw fail("a closing '\"' (control characters must be escaped)") }
                    output.append(byte)
                    index += 1
                    continue
                }
                index += 1
                guard index < bytes.endIndex else { throw fail("an escape after '\\'") }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
                case UInt8(ascii: "b"): output.append(8)
                case UInt8(ascii: "f"): output.append(12)
                case UInt8(ascii: "n"): output.append(10)
                case UInt8(ascii: "r"): output.append(13)
                case UInt8(ascii: "t"): output.append(9)
                case UInt8(ascii: "u"):
                    guard let unit = hex4() else { throw fail("four hexadecimal digits after '\\u'") }
                    var scalarValue = UInt32(unit)
                    if (0xD800..<0xDC00).contains(unit), index + 1 < bytes.endIndex, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { throw fail("a low surrogate after a high one") }
                        scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    }
                    let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
                    output.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw fail("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
                }
            }
            throw fail("a closing '\"'")
        }

        mutating func hex4() -> UInt16? {
            guard index + 4 <= bytes.endIndex else { return nil }
            var value: UInt16 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt16
                switch byte {
                case 48...57: digit = UInt16(byte - 48)
                case 97...102: digit = UInt16(byte - 87)
                case 65...70: digit = UInt16(byte - 55)
                default: return nil
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }
    }
}
