import RetryPolicyCore

/// A place in a file's text, counted three ways so that every consumer can
/// use the one it needs: a language server or an editor (line and column),
/// SARIF (line and column, `columnKind` `unicodeCodePoints`), a tool that
/// patches bytes (the offset).
public struct TextPosition: Hashable, Sendable, Comparable {
    /// 1-based line.
    public var line: Int
    /// 1-based column, in Unicode scalars (code points) after the line's
    /// start, as the loader's locations count them.
    public var column: Int
    /// Offset in bytes from the start of the file (a byte order mark
    /// included), UTF-8.
    public var byteOffset: Int

    public init(line: Int, column: Int, byteOffset: Int) {
        self.line = line
        self.column = column
        self.byteOffset = byteOffset
    }

    public static func < (lhs: TextPosition, rhs: TextPosition) -> Bool { lhs.byteOffset < rhs.byteOffset }
}

/// One replacement of a range of a file's text: the range's text is
/// deleted and `replacement` written in its place (an empty range inserts,
/// an empty replacement deletes).
public struct TextEdit: Hashable, Sendable {
    /// The file, named as the finding's location names it.
    public var file: String
    /// Where the replaced text starts.
    public var start: TextPosition
    /// Just past the replaced text.
    public var end: TextPosition
    public var replacement: String

    public init(file: String, start: TextPosition, end: TextPosition, replacement: String) {
        self.file = file
        self.start = start
        self.end = end
        self.replacement = replacement
    }

    /// Whether the two edits touch the same text. Two insertions at one
    /// place overlap too: their order would be a guess.
    public func overlaps(_ other: TextEdit) -> Bool {
        guard file == other.file else { return false }
        if start.byteOffset == other.start.byteOffset { return true }
        return start.byteOffset < other.end.byteOffset && other.start.byteOffset < end.byteOffset
    }
}

/// The edit that resolves a finding, when resolving it is mechanical (the
/// key a did-you-mean names, `jitter: full`, `max` raised to `initial`):
/// what `lint --fix` applies, `lint --diff` shows, and the JSON and SARIF
/// reports carry for editors to offer.
public struct LintFix: Hashable, Sendable {
    /// What the edit does, one line: `replace 'bakoff' with 'backoff'`.
    public var description: String
    /// Non-overlapping edits, all applied or none.
    public var edits: [TextEdit]

    public init(description: String, edits: [TextEdit]) {
        self.description = description
        self.edits = edits
    }
}
