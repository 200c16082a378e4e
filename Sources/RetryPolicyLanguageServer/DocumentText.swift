import RetryPolicyCore
import RetryPolicyYAML

/// A document's text with its lines, converting between the protocol's
/// positions (0-based line, UTF-16 code units) and the loader's locations
/// (1-based line, column in Unicode scalars).
struct DocumentText: Sendable {
    private(set) var text: String
    private(set) var lines: [Substring]

    init(_ text: String) {
        self.text = text
        self.lines = SourceLines.split(text)
    }

    /// The 0-based line's text, empty past the end.
    func line(_ index: Int) -> Substring {
        index >= 0 && index < lines.count ? lines[index] : ""
    }

    /// The protocol position of a 1-based line and scalar column.
    func position(line: Int, column: Int) -> LSPPosition {
        let index = max(line - 1, 0)
        let text = self.line(index)
        let scalars = text.unicodeScalars.prefix(max(column - 1, 0))
        return LSPPosition(line: index, character: scalars.reduce(0) { $0 + $1.utf16.count })
    }

    /// The 1-based scalar column of a protocol position on its line.
    func scalarColumn(of position: LSPPosition) -> Int {
        var units = 0
        var column = 1
        for scalar in line(position.line).unicodeScalars {
            if units >= position.character { break }
            units += scalar.utf16.count
            column += 1
        }
        return column
    }

    /// The range a finding at `line:column` underlines: the word there
    /// (up to a space, `:` or `,`), else one character.
    func wordRange(line: Int, column: Int) -> LSPRange {
        let start = position(line: line, column: column)
        let rest = self.line(line - 1).unicodeScalars.dropFirst(max(column - 1, 0))
        let word = rest.prefix { !" \t:,#]}".unicodeScalars.contains($0) }
        let width = word.isEmpty ? min(rest.first.map { $0.utf16.count } ?? 0, 1) : word.reduce(0) { $0 + $1.utf16.count }
        return LSPRange(start: start, end: LSPPosition(line: start.line, character: start.character + width))
    }

    /// The word under a position: letters, digits, `_`, `-`, `.`, `/`.
    func word(at cursor: LSPPosition) -> (text: String, range: LSPRange)? {
        let scalars = Array(line(cursor.line).unicodeScalars)
        let column = scalarColumn(of: cursor) - 1
        func isWord(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "_-./".unicodeScalars.contains(scalar)
        }
        var lower = min(column, scalars.count)
        var upper = lower
        while lower > 0 && isWord(scalars[lower - 1]) { lower -= 1 }
        while upper < scalars.count && isWord(scalars[upper]) { upper += 1 }
        guard lower < upper else { return nil }
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[lower..<upper])
        return (String(text), LSPRange(
            start: position(line: cursor.line + 1, column: lower + 1), end: position(line: cursor.line + 1, column: upper + 1)))
    }

    /// The whole text's range.
    var fullRange: LSPRange {
        let last = max(lines.count - 1, 0)
        return LSPRange(start: LSPPosition(line: 0, character: 0), end: LSPPosition(line: last, character: line(last).utf16.count))
    }

    /// The String index of a protocol position (clamped to the text).
    func index(of position: LSPPosition) -> String.Index {
        guard position.line < lines.count, position.line >= 0 else { return text.endIndex }
        let line = lines[position.line]
        var index = line.startIndex
        var units = 0
        while index < line.endIndex, units < position.character {
            units += line.unicodeScalars[index].utf16.count
            index = line.unicodeScalars.index(after: index)
        }
        return index
    }

    /// The text with `range` replaced by `replacement` (an incremental
    /// change), or wholly replaced when `range` is `nil`.
    mutating func apply(_ replacement: String, in range: LSPRange?) {
        guard let range else {
            self = DocumentText(replacement)
            return
        }
        let lower = index(of: range.start)
        let upper = max(index(of: range.end), lower)
        var changed = text
        changed.replaceSubrange(lower..<upper, with: replacement)
        self = DocumentText(changed)
    }
}

/// A protocol position: 0-based line and UTF-16 offset in it.
struct LSPPosition: Sendable, Hashable, Comparable {
    var line: Int
    var character: Int

    init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

    init?(_ value: LSPValue?) {
        guard let line = value?["line"]?.int, let character = value?["character"]?.int, line >= 0, character >= 0 else { return nil }
        self.init(line: line, character: character)
    }

    var json: LSPValue { ["line": .int(line), "character": .int(character)] }

    static func < (lhs: LSPPosition, rhs: LSPPosition) -> Bool { (lhs.line, lhs.character) < (rhs.line, rhs.character) }
}

/// A protocol range, end exclusive.
struct LSPRange: Sendable, Hashable {
    var start: LSPPosition
    var end: LSPPosition

    init(start: LSPPosition, end: LSPPosition) {
        self.start = start
        self.end = end
    }

    init?(_ value: LSPValue?) {
        guard let start = LSPPosition(value?["start"]), let end = LSPPosition(value?["end"]) else { return nil }
        self.init(start: start, end: end)
    }

    var json: LSPValue { ["start": start.json, "end": end.json] }

    func contains(_ position: LSPPosition) -> Bool { start <= position && position <= end }
}
