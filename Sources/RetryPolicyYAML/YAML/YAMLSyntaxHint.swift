import RetryPolicyCore

/// Turns libyaml's syntax error (its problem, its context and their marks)
/// and the lines around it into a diagnostic at the mistake itself, with
/// what was expected and how to fix it.
///
/// libyaml reports where parsing became impossible, which is often the line
/// after the mistake: a key without its colon is found out when the next
/// line starts, an unclosed `[` when the next key appears. Each explanation
/// below recognises one such pattern from the problem text and the source,
/// and otherwise the error is reported as libyaml gives it.
///
/// Each explanation walks at most a few lines up from the error (never
/// above libyaml's context mark, at most ``maximumLookBack`` lines), so the
/// cost is linear in the file however it is built.
struct YAMLSyntaxHint {
    struct Mark {
        var line: Int
        var column: Int
    }

    let problem: String
    let context: String?
    let problemMark: Mark
    let contextMark: Mark?
    let source: SyntaxErrorSource
    let path: String

    /// Lines walked up from the error looking for its cause.
    static let maximumLookBack = 1000
    /// Characters of the file quoted in a message.
    static let quoted = 40

    /// The diagnostic: explained when a pattern fits, libyaml's own words
    /// otherwise.
    func diagnostic() -> Diagnostic {
        if let explained = explanation() { return explained }
        var message = "expected valid YAML, found a syntax error: \(problem)"
        if let context, let contextMark {
            message += " (\(context) at line \(contextMark.line), column \(contextMark.column))"
        }
        return Diagnostic(.yamlSyntax, at: location(problemMark), message)
    }

    func explanation() -> Diagnostic? {
        if let odd = oddCharacter() { return odd }
        switch problem {
        case "found character that cannot start any token", "found a tab character that violates indentation",
            "found a tab character where an indentation space is expected":
            return unexpectedCharacter()
        case "could not find expected ':'":
            return missingColon(keyAt: contextMark)
        case "mapping values are not allowed in this context":
            return colonInValue()
        case "did not find expected key":
            return unexpectedInMapping()
        case "did not find expected '-' indicator":
            return unexpectedInList()
        case "did not find expected ',' or ']'", "did not find expected ',' or '}'":
            return unclosedFlow(closer: problem.hasSuffix("']'") ? "]" : "}")
        case "found unexpected end of stream" where context == "while scanning a quoted scalar":
            return unclosedQuote()
        case "found unknown escape character":
            return Diagnostic(
                .yamlSyntax, at: location(problemMark),
                "expected an escape such as \\n, \\t, \\\" or \\\\ in a double-quoted string, found an unknown escape",
                suggestion: "write \\\\ for a backslash, or quote the value with ' (single quotes do not read escapes)")
        default:
            return nil
        }
    }

    // MARK: Patterns

    /// A no-break space, a zero-width space or a byte order mark on the
    /// error's line or the content line above: invisible in an editor, and
    /// not a space to YAML (`key:<NBSP>value` is no key).
    func oddCharacter() -> Diagnostic? {
        var lines = [problemMark.line]
        if let above = source.previousContentLine(before: problemMark.line) { lines.insert(above, at: 0) }
        if let contextMark, !lines.contains(contextMark.line) { lines.insert(contextMark.line, at: 0) }
        for line in lines {
            var quote: Unicode.Scalar?
            for (offset, scalar) in source.line(line).enumerated() {
                // Inside quotes such a character is text the author meant.
                if let open = quote {
                    if scalar == open { quote = nil }
                    continue
                }
                if scalar == "\"" || scalar == "'" { quote = scalar }
                guard let name = Self.oddSpaceName(scalar) else { continue }
                let hex = String(scalar.value, radix: 16, uppercase: true)
                return Diagnostic(
                    .yamlSyntax, at: location(line: line, column: offset + 1),
                    "expected an ordinary space, found \(name) (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex)), which YAML does not read as a space",
                    suggestion: "replace it with a space (or delete it); editors often show it as a plain space")
            }
        }
        return nil
    }

    static func oddSpaceName(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x00A0: "a no-break space"
        case 0x202F: "a narrow no-break space"
        case 0x200B: "a zero-width space"
        case 0xFEFF: "a byte order mark"
        case 0x2000...0x200A, 0x3000, 0x1680, 0x205F: "a Unicode space"
        default: nil
        }
    }

    /// A tab in indentation, or a character YAML reserves (`@`, `` ` ``)
    /// at the start of a plain value.
    func unexpectedCharacter() -> Diagnostic? {
        guard let found = source.character(line: problemMark.line, column: problemMark.column) else { return nil }
        if found == "\t" || problem.contains("tab") {
            let column = tabColumn(on: problemMark.line) ?? problemMark.column
            return Diagnostic(
                .yamlSyntax, at: location(line: problemMark.line, column: column),
                "expected spaces for indentation, found a tab",
                suggestion: "indent with spaces: YAML does not allow tabs in indentation")
        }
        if found == "@" || found == "`" || found == "%" {
            let key = keyBefore(problemMark)
            let value = source.text(line: problemMark.line, from: problemMark.column, to: source.contentEndColumn(problemMark.line))
            return Diagnostic(
                .yamlSyntax, at: location(problemMark),
                "expected a value, found '\(Character(found))', which YAML reserves at the start of a plain value",
                suggestion: "quote the value: \(key.map { "\($0): " } ?? "")\(Self.doubleQuoted(value))")
        }
        return nil
    }

    /// The first tab of a line's indentation.
    func tabColumn(on line: Int) -> Int? {
        for (offset, scalar) in source.line(line).enumerated() {
            if scalar == "\t" { return offset + 1 }
            if scalar != " " { return nil }
        }
        return nil
    }

    /// A key whose `:` is missing: libyaml notices on the next line; the
    /// colon belongs after the key's first word.
    func missingColon(keyAt mark: Mark?) -> Diagnostic? {
        guard let mark else { return nil }
        let key = source.word(line: mark.line, from: mark.column)
        guard Self.isPlainKey(key) else { return nil }
        if let colon = key.firstIndex(of: ":"), colon != key.startIndex, key.index(after: colon) != key.endIndex {
            // `name:x` is one plain value: a colon needs a space after it.
            let name = String(key[..<colon])
            let column = mark.column + name.unicodeScalars.count + 1
            return Diagnostic(
                .yamlSyntax, at: location(line: mark.line, column: column),
                "expected ': ' (a colon and a space) after the key '\(Self.abbreviated(name))', found ':' with no space",
                suggestion: "write '\(Self.abbreviated(name)): \(Self.abbreviated(String(key[key.index(after: colon)...])))'")
        }
        let rest = source.text(line: mark.line, from: mark.column + key.unicodeScalars.count, to: source.contentEndColumn(mark.line))
            .drop { $0 == " " }
        let fixed = rest.isEmpty ? "\(key):" : "\(key): \(rest)"
        return Diagnostic(
            .yamlSyntax, at: location(line: mark.line, column: mark.column + key.unicodeScalars.count),
            "expected ':' after the key '\(Self.abbreviated(key))', found \(rest.isEmpty ? "the end of the line" : "a space and more text")",
            suggestion: "write '\(Self.abbreviated(fixed))'")
    }

    /// libyaml's "mapping values are not allowed" at a `:`: a second `: `
    /// inside a plain value, a key indented under a plain value, or the key
    /// of the line above missing its colon (the two lines then read as one
    /// plain value).
    func colonInValue() -> Diagnostic? {
        let line = problemMark.line
        if let first = source.mappingColon(line: line), first < problemMark.column {
            let keyColumn = source.indentColumn(line) + (source.character(line: line, column: source.indentColumn(line)) == "-" ? 2 : 0)
            let key = source.text(line: line, from: keyColumn, to: first)
            guard Self.isPlainKey(key) else { return nil }
            let value = source.text(line: line, from: first + 1, to: source.contentEndColumn(line)).drop { $0 == " " }
            return Diagnostic(
                .yamlSyntax, at: location(problemMark),
                "expected a plain value without ': ' in it, found a second ': ' in the value of '\(Self.abbreviated(key))'",
                suggestion: "quote the value: \(Self.abbreviated(key)): \(Self.doubleQuoted(String(value)))")
        }
        guard let above = source.previousContentLine(before: line, floor: line - Self.maximumLookBack) else { return nil }
        let indent = source.indentColumn(line)
        let aboveIndent = contentColumn(above)
        let key = source.word(line: line, from: indent)
        if indent > aboveIndent, let aboveColon = source.mappingColon(line: above), aboveColon + 1 < source.contentEndColumn(above) {
            // `name: x` then `  description: y`: the indented line continues x.
            let aboveKey = source.text(line: above, from: aboveIndent, to: aboveColon)
            return Diagnostic(
                .yamlSyntax, at: location(line: line, column: indent),
                "expected '\(Self.abbreviated(key))' at column \(aboveIndent), aligned with '\(Self.abbreviated(aboveKey))' on line \(above), found it indented to column \(indent) under that key's value",
                suggestion: "indent it to column \(aboveIndent); a key can be nested only under a key with no value on its line")
        }
        if indent == aboveIndent, source.mappingColon(line: above) == nil {
            return missingColon(keyAt: Mark(line: above, column: aboveIndent))
        }
        return nil
    }

    /// Text after a complete value on its line: a quote closed too early
    /// (or opened lines above), a stray `]` or `}`.
    func textAfterValue(found: Unicode.Scalar) -> Diagnostic? {
        let line = problemMark.line
        var before = problemMark.column - 1
        while before > 1, source.character(line: line, column: before) == " " { before -= 1 }
        let previous = source.character(line: line, column: before)
        if found == "]" || found == "}" {
            return Diagnostic(
                .yamlSyntax, at: location(problemMark),
                "expected the end of the line, found an unmatched '\(Character(found))'",
                suggestion: "remove it, or add the '\(found == "]" ? "[" : "{")' it closes")
        }
        guard let quote = previous, quote == "\"" || quote == "'" else {
            return Diagnostic(
                .yamlSyntax, at: location(problemMark),
                "expected the end of the line after the value, found more text",
                suggestion: "quote the whole value, or put the text on a line of its own")
        }
        // Quotes on this line before the closing one: an odd count means the
        // string was opened on a line above.
        var count = 0
        for column in 1..<max(before, 1) where source.character(line: line, column: column) == quote { count += 1 }
        if count % 2 == 0, let opened = openingQuote(quote, before: line) {
            return Diagnostic(
                .yamlSyntax, at: location(line: opened.line, column: opened.column),
                "expected a closing \(quote) on this line, found the string running on to line \(line)",
                suggestion: "close the string on its own line; a quoted string goes on until the next \(quote)")
        }
        let inside = quote == "'" ? "write '' for a quote inside a single-quoted string, or quote the value with \"" : "write \\\" for a quote inside a double-quoted string, or quote the value with '"
        return Diagnostic(
            .yamlSyntax, at: location(line: line, column: before),
            "expected the end of the value at this closing \(quote), found more text after it",
            suggestion: inside)
    }

    /// The unmatched quote of the nearest line above with an odd number
    /// of them.
    func openingQuote(_ quote: Unicode.Scalar, before line: Int) -> Mark? {
        var candidate = line - 1
        let floor = max(1, line - Self.maximumLookBack, contextMark?.line ?? 1)
        while candidate >= floor {
            var columns: [Int] = []
            for (offset, scalar) in source.line(candidate).enumerated() where scalar == quote { columns.append(offset + 1) }
            if columns.count % 2 == 1 { return Mark(line: candidate, column: columns[columns.count - 1]) }
            candidate -= 1
        }
        return nil
    }

    /// A `[` or `{` not closed: libyaml notices at the next line's key. The
    /// closer belongs at the end of the last line that holds content; on
    /// the same line, a missing comma is likelier.
    func unclosedFlow(closer: String) -> Diagnostic? {
        guard let contextMark else { return nil }
        let opener = closer == "]" ? "[" : "{"
        let kind = closer == "]" ? "list" : "mapping"
        let line = problemMark.line
        let indent = source.indentColumn(line)
        let sameLine = Diagnostic(
            .yamlSyntax, at: location(problemMark),
            "expected ',' or '\(closer)' before this, inside the \(kind) opened at line \(contextMark.line), column \(contextMark.column)",
            suggestion: "separate the items with ', ', or close the \(kind) with '\(closer)'")
        guard line > contextMark.line, let last = source.previousContentLine(before: line, floor: contextMark.line) else { return sameLine }
        // A line that starts a key (`name:`) or is no deeper than the line
        // that opened the collection is not one of its items.
        let startsKey = source.mappingColon(line: line) != nil && source.character(line: line, column: indent) != "{"
        if startsKey || indent <= source.indentColumn(contextMark.line) {
            return Diagnostic(
                .yamlSyntax, at: location(line: last, column: source.contentEndColumn(last)),
                "expected '\(closer)' to close the \(kind) opened at line \(contextMark.line), column \(contextMark.column), found the end of the line",
                suggestion: "add '\(closer)' at the end of line \(last) (the '\(opener)' on line \(contextMark.line) is still open)")
        }
        if problemMark.column > indent { return sameLine }
        return Diagnostic(
            .yamlSyntax, at: location(line: last, column: source.contentEndColumn(last)),
            "expected ',' or '\(closer)' at the end of this line, inside the \(kind) opened at line \(contextMark.line), column \(contextMark.column)",
            suggestion: "add ',' between items, or '\(closer)' to close the \(kind)")
    }

    func unclosedQuote() -> Diagnostic? {
        guard let contextMark, let quote = source.character(line: contextMark.line, column: contextMark.column) else { return nil }
        return Diagnostic(
            .yamlSyntax, at: location(contextMark),
            "expected a closing \(quote) for the string that starts here, found the end of the file",
            suggestion: "close the string with \(quote) on this line; a quoted string goes on until the next \(quote)")
    }

    // MARK: Helpers

    /// The key on the error's line before its column, if the line is
    /// `key: value`.
    func keyBefore(_ mark: Mark) -> String? {
        guard let colon = source.mappingColon(line: mark.line), colon < mark.column else { return nil }
        let indent = source.indentColumn(mark.line)
        let start = indent + (source.character(line: mark.line, column: indent) == "-" ? 2 : 0)
        return Self.abbreviated(source.text(line: mark.line, from: start, to: colon))
    }

    /// Whether `word` reads as a plain key (not a quoted string, a flow
    /// collection, an anchor, a tag or an indicator), the only kind the
    /// explanations quote back.
    static func isPlainKey(_ word: String) -> Bool {
        guard let first = word.unicodeScalars.first else { return false }
        return !"\"'[]{}&*!|>?:#%@`,".unicodeScalars.contains(first)
    }

    static func abbreviated(_ text: String) -> String {
        text.count > quoted ? String(text.prefix(quoted)) + "..." : text
    }

    /// `text` as a double-quoted YAML string, shortened.
    static func doubleQuoted(_ text: String) -> String {
        var escaped = ""
        for character in abbreviated(text) {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default: escaped.append(character)
            }
        }
        return "\"" + escaped + "\""
    }

    func location(_ mark: Mark) -> SourceLocation {
        location(line: mark.line, column: mark.column)
    }

    func location(line: Int, column: Int) -> SourceLocation {
        SourceLocation(file: path, line: max(line, 1), column: max(column, 1))
    }
}
