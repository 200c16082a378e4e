/// Text for a cell of a GitHub-flavoured Markdown table (`retry-policy
/// table`), where names from the policy file end up.
///
/// A cell is one line between `|` delimiters, so the text first goes
/// through `DisplayText` (no line break, control or bidirectional character
/// survives raw), then the characters that would end the cell, open a code
/// span or raw HTML (an HTML comment could hide the rest of the table), or
/// escape what follows are backslash-escaped, scalar by scalar (a `|`
/// followed by a combining mark is one `Character`, yet still a
/// delimiter). Emphasis characters stay: at worst they change how a name
/// looks, not what the table says.
package enum MarkdownCell {
    /// Plain text in a cell.
    package static func text(_ text: String) -> String {
        var result = ""
        for scalar in DisplayText.escaped(text).unicodeScalars {
            switch scalar {
            case "\\", "`", "|", "<": result += "\\" + String(scalar)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Text shown as code in a cell: fenced by more backticks than it holds
    /// in a row (CommonMark code spans), padded with spaces when it starts
    /// or ends with a backtick. Inside a code span only `|` needs escaping
    /// (the table is split into cells before the spans are read).
    package static func code(_ text: String) -> String {
        let shown = DisplayText.escaped(text).unicodeScalars
        var longestRun = 0
        var run = 0
        var body = ""
        for scalar in shown {
            run = scalar == "`" ? run + 1 : 0
            longestRun = max(longestRun, run)
            if scalar == "|" { body += "\\" }
            body.unicodeScalars.append(scalar)
        }
        let fence = String(repeating: "`", count: longestRun + 1)
        let padding = shown.first == "`" || shown.last == "`" ? " " : ""
        return fence + padding + body + padding + fence
    }
}
