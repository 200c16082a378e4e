import RetryPolicyCore

/// `--format github`: workflow commands that GitHub Actions turns into
/// annotations on the pull request diff. Chosen automatically when
/// `GITHUB_ACTIONS` is set.
///
/// Text from the file (its path, what a message or suggestion quotes) goes
/// through `DisplayText` first, then the runner's own escaping: the first
/// makes control, line-break and bidirectional characters visible and
/// breaks `::` and `##[`, the second is what the runner needs to read the
/// command's properties and message back.
public enum GitHubFormatter {
    public static func render(_ report: LintReport) -> String {
        var output = ""
        for finding in report.findings {
            let command: String
            switch finding.severity {
            case .error: command = "error"
            case .warning: command = "warning"
            case .note: command = "notice"
            }
            var message = DisplayText.escaped(finding.message)
            if let suggestion = finding.suggestion { message += " (\(DisplayText.escaped(suggestion)))" }
            output += "::\(command) file=\(property(DisplayText.escaped(finding.location.file))),line=\(finding.location.line),"
                + "col=\(finding.location.column),title=\(property(finding.id))::\(data(message))\n"
        }
        output += report.summary + "\n"
        return output
    }

    /// Escaping of a command's message (the runner's `escapeData`).
    static func data(_ text: String) -> String {
        percentEncoding(text, property: false)
    }

    /// Escaping of a command property (the runner's `escapeProperty`).
    static func property(_ text: String) -> String {
        percentEncoding(text, property: true)
    }

    /// Works on Unicode scalars: as characters, a CR LF pair is one
    /// `Character` that neither `"\r"` nor `"\n"` would match.
    private static func percentEncoding(_ text: String, property: Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": result += "%25"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            case ":" where property: result += "%3A"
            case "," where property: result += "%2C"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
