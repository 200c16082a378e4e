import RetryPolicyCore
import RetryPolicyYAML

/// Compiler-style output: each finding's diagnostic headline
/// (`file:line:col: warning: message [RP101]`), the source line, a caret
/// under the column, and the suggestion's line. Colour only when asked (the
/// CLI asks when standard output is a terminal).
///
/// What it prints of a file is bounded: one line per finding, at most
/// `maximumExcerpt` characters of it around the column. Everything that
/// came from the file (its path, the source line, the names and values a
/// message or suggestion quotes) goes through `DisplayText`, so a file
/// cannot flood a log, drive the terminal that shows it, or forge a line
/// of the report or a CI annotation.
public struct HumanFormatter: Sendable {
    package var colour: Bool
    /// Returns the text of a file, for the source excerpt; `nil` for a
    /// file whose lines must not be shown (the CLI quotes only policy files
    /// inside its root).
    public var source: @Sendable (String) -> String?

    /// The most characters of a source line shown.
    public static let maximumExcerpt = 160

    public init(colour: Bool, source: @escaping @Sendable (String) -> String?) {
        self.colour = colour
        self.source = source
    }

    /// The findings, then the summary line unless `quiet`.
    public func render(_ report: LintReport, quiet: Bool = false) -> String {
        var output = ""
        var cache: [String: [Substring]] = [:]
        for finding in report.findings {
            let style = { (text: String, part: Diagnostic.Part) in self.styled(text, part, severity: finding.severity) }
            output += finding.diagnostic.headline(styling: style) + "\n"
            let file = finding.location.file
            if cache[file] == nil {
                cache[file] = source(file).map(SourceLines.split) ?? []
            }
            let lines = cache[file]!
            if finding.location.line >= 1, finding.location.line <= lines.count {
                let text = lines[finding.location.line - 1]
                let (excerpt, caret) = Self.excerpt(of: text, column: max(finding.location.column, 1))
                output += "    " + excerpt + "\n"
                output += "    " + caret + styled("^", colourCode: "32", bold: true) + "\n"
            }
            if let line = finding.diagnostic.suggestionLine(styling: style) { output += line + "\n" }
        }
        if !quiet { output += report.summary + "\n" }
        return output
    }

    /// At most ``maximumExcerpt`` characters of `line` around `column`
    /// (marked with `...` where cut), made safe to print with
    /// `DisplayText`, and the padding that puts a caret under the column.
    static func excerpt(of line: Substring, column: Int) -> (text: String, caretPadding: String) {
        let characters = Array(line)
        let target = min(column - 1, characters.count)
        var start = 0
        var end = characters.count
        if characters.count > maximumExcerpt {
            start = max(0, min(target - maximumExcerpt / 2, characters.count - maximumExcerpt))
            end = start + maximumExcerpt
        }
        // How a character is shown depends only on the ones before it (a
        // workflow command is broken at its second `:` or its `[`), so the
        // shown prefix up to the column is a prefix of the shown excerpt.
        let shown = DisplayText.escaped(String(characters[start..<end]))
        let shownBefore = DisplayText.escaped(String(characters[start..<max(start, target)]))
        let text = (start > 0 ? "..." : "") + shown + (end < characters.count ? "..." : "")
        let padding = (start > 0 ? "   " : "") + String(shownBefore.map { $0 == "\t" ? "\t" : " " })
        return (text, padding)
    }

    static func colourCode(_ severity: Diagnostic.Severity) -> String {
        switch severity {
        case .error: "31"
        case .warning: "33"
        case .note: "36"
        }
    }

    /// The location, severity and message bold, the severity in its colour,
    /// the suggestion's label cyan.
    private func styled(_ text: String, _ part: Diagnostic.Part, severity: Diagnostic.Severity) -> String {
        switch part {
        case .location, .message: styled(text, bold: true)
        case .severity: styled(text, colourCode: Self.colourCode(severity), bold: true)
        case .suggestionLabel: styled(text, colourCode: "36")
        }
    }

    private func styled(_ text: String, colourCode: String? = nil, bold: Bool = false) -> String {
        guard colour else { return text }
        var codes: [String] = []
        if bold { codes.append("1") }
        if let colourCode { codes.append(colourCode) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m" + text + "\u{1B}[0m"
    }
}
