/// The text around a YAML syntax error, read only once libyaml has failed:
/// lines and columns as libyaml counts them (1-based, columns in Unicode
/// scalars, a line ending at LF, CRLF or a lone CR).
///
/// Decoding is one pass over the file; every question asked of it looks at
/// one line, so an explanation that asks a bounded number of questions per
/// line it walks stays linear in the file's size.
struct SyntaxErrorSource {
    private let scalars: [Unicode.Scalar]
    /// Where each line starts in `scalars`; a final entry marks the end.
    private let lineStarts: [Int]

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(bytes.count)
        var starts = [0]
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var previousWasCR = false
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" && previousWasCR {
                    // The LF of a CRLF: the CR already ended the line.
                    starts[starts.count - 1] += 1
                } else if scalar == "\n" || scalar == "\r" {
                    starts.append(scalars.count + 1)
                }
                previousWasCR = scalar == "\r"
                scalars.append(scalar)
            case .error:
                // TextValidation has refused invalid UTF-8 before libyaml ran.
                previousWasCR = false
                scalars.append("\u{FFFD}")
            case .emptyInput:
                break loop
            }
        }
        starts.append(scalars.count + 1)
        self.scalars = scalars
        self.lineStarts = starts
    }

    /// How many lines the file has (a final line break starts an empty last line).
    var lineCount: Int { lineStarts.count - 1 }

    /// Line `number` without its line break; empty outside the file.
    func line(_ number: Int) -> ArraySlice<Unicode.Scalar> {
        guard number >= 1, number <= lineCount else { return [] }
        let start = lineStarts[number - 1]
        var end = min(lineStarts[number] - 1, scalars.count)
        while end > start, scalars[end - 1] == "\n" || scalars[end - 1] == "\r" { end -= 1 }
        return scalars[start..<max(start, end)]
    }

    /// The character at a 1-based line and column, if there is one.
    func character(line number: Int, column: Int) -> Unicode.Scalar? {
        let text = line(number)
        guard column >= 1, column <= text.count else { return nil }
        return text[text.startIndex + column - 1]
    }

    /// The 1-based column of the line's first character that is not a
    /// space (one past the end for a blank line).
    func indentColumn(_ number: Int) -> Int {
        let text = line(number)
        return (text.firstIndex { $0 != " " } ?? text.endIndex) - text.startIndex + 1
    }

    /// Whether the line holds nothing YAML reads: blank, or a comment.
    func isBlankOrComment(_ number: Int) -> Bool {
        let text = line(number)
        guard let first = text.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return true }
        return text[first] == "#"
    }

    /// The nearest line above `number` that holds content, looking no
    /// further up than `floor`.
    func previousContentLine(before number: Int, floor: Int = 1) -> Int? {
        var candidate = min(number - 1, lineCount)
        while candidate >= max(floor, 1) {
            if !isBlankOrComment(candidate) { return candidate }
            candidate -= 1
        }
        return nil
    }

    /// The line's text from a 1-based column, as a string.
    func text(line number: Int, from column: Int = 1, to end: Int? = nil) -> String {
        let text = line(number)
        let from = text.startIndex + min(max(column - 1, 0), text.count)
        let to = text.startIndex + min(max((end ?? text.count + 1) - 1, 0), text.count)
        var result = String.UnicodeScalarView()
        if from < to { result.append(contentsOf: text[from..<to]) }
        return String(result)
    }

    /// The 1-based column just past the line's last character that is not
    /// a space, leaving out a trailing comment.
    func contentEndColumn(_ number: Int) -> Int {
        let text = line(number)
        var end = text.endIndex
        var index = text.startIndex
        var quote: Unicode.Scalar?
        while index < text.endIndex {
            let scalar = text[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == "#", index == text.startIndex || text[index - 1] == " " {
                end = index
                break
            }
            index += 1
        }
        while end > text.startIndex, text[end - 1] == " " || text[end - 1] == "\t" { end -= 1 }
        return end - text.startIndex + 1
    }

    /// The first word of a line from a column: the characters up to a
    /// space, a colon followed by a space, or the end.
    func word(line number: Int, from column: Int) -> String {
        let text = line(number)
        var index = text.startIndex + min(max(column - 1, 0), text.count)
        var result = String.UnicodeScalarView()
        while index < text.endIndex, text[index] != " ", text[index] != "\t" {
            if text[index] == ":" && (index + 1 == text.endIndex || text[index + 1] == " ") { break }
            result.append(text[index])
            index += 1
        }
        return String(result)
    }

    /// The 1-based column of the first `: ` (or a final `:`) of a line
    /// outside quotes, at or after `column`.
    func mappingColon(line number: Int, from column: Int = 1) -> Int? {
        let text = line(number)
        var index = text.startIndex + min(max(column - 1, 0), text.count)
        var quote: Unicode.Scalar?
        while index < text.endIndex {
            let scalar = text[index]
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                if index == text.startIndex || text[index - 1] == " " { quote = scalar }
            } else if scalar == "#", index > text.startIndex, text[index - 1] == " " {
                return nil
            } else if scalar == ":", index + 1 == text.endIndex || text[index + 1] == " " || text[index + 1] == "\t" {
                return index - text.startIndex + 1
            }
            index += 1
        }
        return nil
    }
}
