import RetryPolicyCore

/// Text for a cell of a GitHub-flavoured Markdown table (`retry-policy
/// table`), where names from the policy file end up.
///
/// A cell is one line between `|` delimiters, so the text first goes
/// through `DisplayText` (no line break, control or bidirectional character
/// survives raw), then the characters that would end the cell, open a code
/// span or raw HTML (an HTML comment could hide the rest of the table), or
/// escape what follows are backslash-escaped. Emphasis characters stay: at
/// worst they change how a name looks, not what the table says.
enum MarkdownCell {
    /// Plain text in a cell.
    static func text(_ text: String) -> String {
        var result = ""
        for character in DisplayText.escaped(text) {
            switch character {
            case "\\", "`", "|", "<": result += "\\" + String(character)
            default: result.append(character)
            }
        }
        return result
    }

    /// Text shown as code in a cell: fenced by more backticks than it holds
    /// in a row (CommonMark code spans), padded with spaces when it starts
    /// or ends with a backtick. Inside a code span only `|` needs escaping
    /// (the table is split into cells before the spans are read).
    static func code(_ text: String) -> String {
        let shown = DisplayText.escaped(text)
        var longestRun = 0
        var run = 0
        for character in shown {
            run = character == "`" ? run + 1 : 0
            longestRun = max(longestRun, run)
        }
        let fence = String(repeating: "`", count: longestRun + 1)
        let padding = shown.hasPrefix("`") || shown.hasSuffix("`") ? " " : ""
        return fence + padding + shown.replacing("|", with: "\\|") + padding + fence
    }
}
