import RetryPolicyCore
import RetryPolicyYAML

/// Compiler-style output: `file:line:col: warning: message [RP101]`, the
/// source line, and a caret under the column. Colour only when asked (the
/// CLI asks when standard output is a terminal).
///
/// What it prints of a file is bounded: one line per finding, at most
/// ``maximumExcerpt`` characters of it around the column, with control
/// characters (terminal escapes among them) shown as `\u{1B}`, so a file
/// cannot flood a log or drive the terminal that shows it.
public struct HumanFormatter: Sendable {
    public var colour: Bool
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

    public func render(_ report: LintReport) -> String {
        var output = ""
        var cache: [String: [Substring]] = [:]
        for finding in report.findings {
            output += styled(finding.location.description + ":", bold: true) + " "
            output += styled(finding.severity.rawValue + ":", colourCode: Self.colourCode(finding.severity), bold: true)
            output += " " + styled(Self.printable(finding.message), bold: true) + " [\(finding.id)]\n"
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
            if let suggestion = finding.suggestion {
                output += "    " + styled("suggestion:", colourCode: "36") + " " + Self.printable(suggestion) + "\n"
            }
        }
        output += report.summary + "\n"
        return output
    }

    /// At most ``maximumExcerpt`` characters of `line` around `column`
    /// (marked with `...` where cut), made printable, and the padding that
    /// puts a caret under the column.
    static func excerpt(of line: Substring, column: Int) -> (text: String, caretPadding: String) {
        let characters = Array(line)
        let target = min(column - 1, characters.count)
        var start = 0
        var end = characters.count
        if characters.count > maximumExcerpt {
            start = max(0, min(target - maximumExcerpt / 2, characters.count - maximumExcerpt))
            end = start + maximumExcerpt
        }
        var text = start > 0 ? "..." : ""
        var padding = start > 0 ? "   " : ""
        for index in start..<end {
            let shown = printable(String(characters[index]))
            text += shown
            if index < target { padding += characters[index] == "\t" ? "\t" : String(repeating: " ", count: shown.count) }
        }
        if end < characters.count { text += "..." }
        return (text, padding)
    }

    /// `text` with control characters other than tab written as `\u{..}`.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    static func colourCode(_ severity: LintSeverity) -> String {
        switch severity {
        case .error: "31"
        case .warning: "33"
        case .note: "36"
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
