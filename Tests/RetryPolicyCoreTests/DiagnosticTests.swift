import RetryPolicyCore
import Testing

@Suite("Located diagnostics, printed one way")
struct DiagnosticTests {
    let location = SourceLocation(file: "policies/api.yaml", line: 12, column: 5)

    @Test("one line: location, severity, message, id, then the suggestion in parentheses")
    func oneLine() {
        let full = Diagnostic(id: "RP010", location: location, message: "unknown key 'backof'", suggestion: "did you mean 'backoff'?")
        #expect(full.description == "policies/api.yaml:12:5: error: unknown key 'backof' [RP010] (did you mean 'backoff'?)")
        let bare = Diagnostic(severity: .warning, location: location, message: "skipped")
        #expect(bare.description == "policies/api.yaml:12:5: warning: skipped")
        #expect(Diagnostic.lines([full, bare]) == full.description + "\n" + bare.description)
    }

    @Test("indented form: the suggestion on a line of its own; none without one")
    func indented() {
        let warning = Diagnostic(severity: .note, location: location, message: "m", suggestion: "s")
        #expect(warning.indentedDescription == "policies/api.yaml:12:5: note: m\n    suggestion: s")
        #expect(Diagnostic(id: "x", location: location, message: "m").indentedDescription == "policies/api.yaml:12:5: error: m [x]")
    }

    @Test("a styling closure sees each part once, in order, with its colon")
    func styling() {
        let diagnostic = Diagnostic(id: "RP101", severity: .warning, location: location, message: "dead", suggestion: "delete it")
        var seen: [(String, Diagnostic.Part)] = []
        let headline = diagnostic.headline { text, part in
            seen.append((text, part))
            return "<\(text)>"
        }
        #expect(headline == "<policies/api.yaml:12:5:> <warning:> <dead> [RP101]")
        #expect(seen.map(\.1) == [.location, .severity, .message])
        #expect(diagnostic.suggestionLine { text, _ in text.uppercased() } == "    SUGGESTION: delete it")
    }

    @Test("text from the file cannot steer a terminal or start a workflow command, in either form")
    func escaped() {
        let hostile = Diagnostic(
            id: "f\u{1B}[2J", severity: .warning,
            location: SourceLocation(file: "::error file=x::\u{1B}[31mrec\r\nfake", line: 1, column: 1),
            message: "::warning ::x ##[error]y\u{202E}", suggestion: "\n::notice ::z")
        for text in [hostile.description, hostile.indentedDescription] {
            #expect(!text.unicodeScalars.contains { $0 != "\n" && DisplayText.isUnsafe($0) })
            #expect(!text.split(separator: "\n").contains { $0.drop { $0 == " " }.hasPrefix("::") })
            #expect(!text.contains("##["))
        }
        #expect(!hostile.description.contains("\n"))
        #expect(hostile.indentedDescription.split(separator: "\n").count == 2)
        // The message keeps the exact text, for formats that encode it.
        #expect(hostile.message == "::warning ::x ##[error]y\u{202E}")
    }

    @Test("severities order note < warning < error")
    func severityOrder() {
        #expect(Diagnostic.Severity.allCases.sorted() == [.note, .warning, .error])
        #expect(Diagnostic.Severity.warning >= .warning && !(Diagnostic.Severity.note >= .warning))
    }
}
