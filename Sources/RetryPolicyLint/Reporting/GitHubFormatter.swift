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
    /// One annotation per finding, then the summary line unless `quiet`.
    public static func render(_ report: LintReport, quiet: Bool = false) -> String {
        var output = ""
        for finding in report.findings {
            var message = finding.message
            if let suggestion = finding.suggestion { message += " (\(suggestion))" }
            output += annotation(finding.severity, at: finding.location, title: finding.id, message: message)
        }
        if !quiet { output += report.summary + "\n" }
        return output
    }

    /// One workflow command: `::warning file=...,line=...,col=...,title=...::message`.
    /// `message` and `title` are made safe here (`DisplayText`, then the
    /// runner's escaping), so callers pass the text as found.
    package static func annotation(_ severity: Diagnostic.Severity, at location: SourceLocation, title: String, message: String) -> String {
        let command: String
        switch severity {
        case .error: command = "error"
        case .warning: command = "warning"
        case .note: command = "notice"
        }
        return "::\(command) file=\(property(DisplayText.escaped(location.file))),line=\(location.line),"
            + "col=\(location.column),title=\(property(DisplayText.escaped(title)))::\(data(DisplayText.escaped(message)))\n"
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
