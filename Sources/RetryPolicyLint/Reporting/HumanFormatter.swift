import RetryPolicyCore

/// Compiler-style output: `file:line:col: warning: message [RP101]`, the
/// source line, and a caret under the column. Colour only when asked (the
/// CLI asks when standard output is a terminal).
public struct HumanFormatter: Sendable {
    public var colour: Bool
    /// Returns the text of a file, for the source excerpt.
    public var source: @Sendable (String) -> String?

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
            output += " " + styled(finding.message, bold: true) + " [\(finding.id)]\n"
            let file = finding.location.file
            if cache[file] == nil {
                cache[file] = source(file).map { $0.split(separator: "\n", omittingEmptySubsequences: false) } ?? []
            }
            let lines = cache[file]!
            if finding.location.line >= 1, finding.location.line <= lines.count {
                var text = lines[finding.location.line - 1]
                if text.hasSuffix("\r") { text = text.dropLast() }
                output += "    " + text + "\n"
                let column = max(finding.location.column, 1)
                let padding = text.prefix(column - 1).map { $0 == "\t" ? "\t" : " " }.joined()
                output += "    " + padding + styled("^", colourCode: "32", bold: true) + "\n"
            }
            if let suggestion = finding.suggestion {
                output += "    " + styled("suggestion:", colourCode: "36") + " " + suggestion + "\n"
            }
        }
        output += report.summary + "\n"
        return output
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
