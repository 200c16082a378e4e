import ArgumentParser
import Foundation

/// Help text wrapped to the terminal without breaking what a reader copies.
///
/// swift-argument-parser wraps help at any space, so a documented example
/// such as `--now 'Mon, 23 Nov 2026 12:00:00 GMT'` came out split inside
/// its quotes, and a long example line split into two commands. The help
/// is rendered unwrapped and wrapped here instead:
/// - an indented line of a command's discussion is an example or a code
///   block (`retry-policy decide ...`, `rules:`) and is never wrapped;
/// - elsewhere a line breaks only at a space outside quotes (`'...'`,
///   `"..."`, `` `...` ``) and outside the `[...]`/`<...>` groups of a
///   usage line, so a quoted argument stays on one line;
/// - the rows of the ARGUMENTS, OPTIONS and SUBCOMMANDS sections keep their
///   help text in its column.
package enum HelpText {
    /// The column where swift-argument-parser starts an option's help.
    static let labelColumn = 26

    /// What swift-argument-parser prints for `--help` and `help`, wrapped
    /// as above to `width` columns (default: the terminal's).
    package static func message<Command: ParsableArguments>(_: Command.Type, for error: any Error, width: Int? = nil) -> String {
        wrapped(Command.fullMessage(for: error, columns: 100_000), width: width ?? terminalWidth)
    }

    /// The width help is wrapped to: `COLUMNS` when set, else the
    /// terminal's, else 80 (as swift-argument-parser chooses it).
    package static var terminalWidth: Int {
        if let columns = ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// `text` wrapped to lines shorter than `width` (as swift-argument-parser
    /// wraps), by the rules above.
    package static func wrapped(_ text: String, width: Int) -> String {
        let width = max(width, labelColumn + 20)
        var beforeUsage = true
        var output: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("USAGE:") { beforeUsage = false }
            let indent = line.prefix { $0 == " " }.count
            guard line.count >= width else {
                output.append(line)
                continue
            }
            if beforeUsage && indent > 0 {
                output.append(line)  // an example or a code block
            } else if line.hasPrefix("USAGE:") {
                output += fill(line, width: width, hangingIndent: "USAGE: ".count, groups: true)
            } else if indent == 2, line.count > labelColumn, line.dropFirst(labelColumn - 2).prefix(2) == "  ",
                line[line.index(line.startIndex, offsetBy: labelColumn)] != " "
            {
                output += fill(line, width: width, hangingIndent: labelColumn, groups: false)
            } else {
                output += fill(line, width: width, hangingIndent: indent, groups: false)
            }
        }
        return output.joined(separator: "\n")
    }

    /// One line filled greedily into lines shorter than `width`; the first
    /// keeps its own start (an option's label), the others start at
    /// `hangingIndent`.
    static func fill(_ line: String, width: Int, hangingIndent: Int, groups: Bool) -> [String] {
        let indent = line.prefix { $0 == " " }.count
        let words = self.words(String(line.dropFirst(indent)), groups: groups)
        var lines: [String] = []
        var current = String(repeating: " ", count: indent)
        var empty = true
        for word in words {
            if empty {
                current += word
                empty = false
            } else if current.count + 1 + word.count < width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(repeating: " ", count: hangingIndent) + word
            }
        }
        lines.append(current)
        return lines
    }

    /// The words of `text` split at single spaces, where a quoted span
    /// that opens at the start of a word (and closes on the line) is one
    /// word with its spaces; with `groups`, so is a `[...]` or `<...>`
    /// group. A run of spaces (a label's padding) stays in the word before.
    static func words(_ text: String, groups: Bool) -> [String] {
        let characters = Array(text)
        var words: [String] = []
        var current = ""
        var index = 0
        var depth = 0
        while index < characters.count {
            let character = characters[index]
            if current.isEmpty || current.last == " ", depth == 0, character == "'" || character == "\"" || character == "`",
                let close = characters[(index + 1)...].firstIndex(of: character)
            {
                current += String(characters[index...close])
                index = close + 1
                continue
            }
            if groups {
                if character == "[" || character == "<" { depth += 1 }
                if character == "]" || character == ">" { depth = max(0, depth - 1) }
            }
            if character == " " && depth == 0 {
                // Padding (two spaces or more) stays inside a word: a
                // label and its help never part.
                let padding = current.last == " " || (index + 1 < characters.count && characters[index + 1] == " ")
                if padding {
                    current.append(character)
                } else {
                    words.append(current)
                    current = ""
                }
            } else {
                current.append(character)
            }
            index += 1
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
