import RetryPolicyCore

/// A file's text indexed by line, to turn the loader's `line:column`
/// locations into the byte ranges of the keys, values and comments a fix
/// replaces.
///
/// Lines end at `\n`, `\r\n` or `\r`, as `SourceLines` splits them; a
/// leading byte order mark is not part of line 1 (the loader counts
/// columns after it), but byte offsets count it.
struct FixSource: Sendable {
    let file: String
    let bytes: [UInt8]
    /// The byte offset where each line starts; line 1 is `lineStarts[0]`.
    let lineStarts: [Int]

    init(file: String, bytes: [UInt8]) {
        self.file = file
        self.bytes = bytes
        var starts: [Int] = []
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        starts.append(index)
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\n"):
                index += 1
                starts.append(index)
            case UInt8(ascii: "\r"):
                index += index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") ? 2 : 1
                starts.append(index)
            default:
                index += 1
            }
        }
        lineStarts = starts
    }

    init(file: String, text: String) {
        self.init(file: file, bytes: Array(text.utf8))
    }

    var lineCount: Int { lineStarts.count }

    /// Where line `line`'s text ends, before its line break.
    func lineEnd(_ line: Int) -> Int {
        var end = line < lineStarts.count ? lineStarts[line] : bytes.count
        if end > lineStarts[line - 1], bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > lineStarts[line - 1], bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return end
    }

    /// Just past line `line`'s line break (the end of the file for the
    /// last line).
    func nextLineStart(_ line: Int) -> Int {
        line < lineStarts.count ? lineStarts[line] : bytes.count
    }

    /// The byte offset of `column` (in Unicode scalars) on `line`; `nil`
    /// past the line's end.
    func offset(line: Int, column: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count, column >= 1 else { return nil }
        var offset = lineStarts[line - 1]
        let end = lineEnd(line)
        var remaining = column - 1
        while remaining > 0 {
            guard offset < end else { return nil }
            offset += Self.scalarLength(bytes[offset])
            remaining -= 1
        }
        return offset <= end ? offset : nil
    }

    /// The line, column and offset of a byte offset that starts a scalar.
    func position(_ offset: Int) -> TextPosition {
        var low = 0
        var high = lineStarts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if lineStarts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        let start = lineStarts[low]
        var column = 1
        var index = start
        while index < offset {
            index += Self.scalarLength(bytes[index])
            column += 1
        }
        return TextPosition(line: low + 1, column: column, byteOffset: max(offset, start))
    }

    /// A text edit replacing bytes `start..<end`.
    func edit(_ start: Int, _ end: Int, with replacement: String) -> TextEdit {
        TextEdit(file: file, start: position(start), end: position(end), replacement: replacement)
    }

    func text(_ start: Int, _ end: Int) -> String {
        String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// The plain (unquoted) scalar starting at `line:column`: up to a `:`
    /// that ends a key, a comment, a flow indicator or the line's end,
    /// trailing blanks left out. `nil` when none starts there (a quoted
    /// scalar, a block or flow collection, an indicator).
    func plainScalar(line: Int, column: Int) -> (start: Int, end: Int)? {
        guard let start = offset(line: line, column: column) else { return nil }
        let end = lineEnd(line)
        guard start < end, !Self.startsNonPlain(bytes[start]) else { return nil }
        var index = start
        var last = start
        while index < end {
            let byte = bytes[index]
            let next: UInt8? = index + 1 < end ? bytes[index + 1] : nil
            if byte == UInt8(ascii: ":"), next == nil || next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") { break }
            if byte == UInt8(ascii: "#"), index > start, bytes[index - 1] == UInt8(ascii: " ") || bytes[index - 1] == UInt8(ascii: "\t") {
                break
            }
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") { break }
            index += 1
            if byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") { last = index }
        }
        return last > start ? (start, last) : nil
    }

    /// The plain scalar value written after the key whose plain scalar
    /// starts at `line:column`, on the same line (`key: value`).
    func valueAfterKey(line: Int, column: Int) -> (start: Int, end: Int)? {
        guard let key = plainScalar(line: line, column: column) else { return nil }
        let end = lineEnd(line)
        var index = key.end
        guard index < end, bytes[index] == UInt8(ascii: ":") else { return nil }
        index += 1
        while index < end, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        guard index < end else { return nil }
        return plainScalar(line: line, column: position(index).column)
    }

    /// Whether a scalar starting with `byte` is not plain: quoted, an
    /// indicator, or a collection.
    private static func startsNonPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"),
            UInt8(ascii: "}"), UInt8(ascii: "#"), UInt8(ascii: "&"), UInt8(ascii: "*"), UInt8(ascii: "!"),
            UInt8(ascii: "|"), UInt8(ascii: ">"), UInt8(ascii: "%"), UInt8(ascii: "@"), UInt8(ascii: "`"),
            UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\t"):
            true
        default:
            false
        }
    }

    /// The length of the UTF-8 sequence a lead byte starts (1 for a stray
    /// continuation byte, so a walk always advances).
    static func scalarLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xF0...0xFF: 4
        case 0xE0..<0xF0: 3
        case 0xC0..<0xE0: 2
        default: 1
        }
    }
}
