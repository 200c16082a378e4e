import Foundation
import PropertyBased
import RetryPolicyCore
import RetryPolicyYAML
import Testing

@testable import RetryPolicyLint

/// Text from a policy file (its name, what a message or suggestion quotes,
/// the source line) reaches terminals and CI logs: no format may print it
/// raw, and the encoded formats must keep it exact.
@Suite("Report formats show text from files safely")
struct HostileTextReportingTests {
    /// A name that would change the terminal's title, return the cursor and
    /// forge a GitHub annotation on a line of its own.
    static let forged = "x\u{1B}]0;owned\u{7}\r\n::error file=x::forged"

    static func finding(
        file: String = forged, message: String = "unknown key '\(forged) ##[error]'", suggestion: String? = "did you mean '\u{202E}kcab'?"
    ) -> LintFinding {
        LintFinding(id: "RP010", severity: .error, location: RetryPolicyCore.SourceLocation(file: file, line: 1, column: 3), message: message, suggestion: suggestion)
    }

    /// Whether `scalar` is a character no report may print raw (our own
    /// line feeds aside).
    static func isRaw(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && DisplayText.isUnsafe(scalar)
    }

    /// A line the GitHub runner acts on: after spaces and tabs it starts
    /// with `::`, or it holds `##[` anywhere.
    static func isWorkflowCommand(_ line: Substring) -> Bool {
        line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("::") || line.contains("##[")
    }

    /// One of the annotations `--format github` writes: a known command,
    /// then properties in which the runner's escaping left no `:`.
    static func isOwnAnnotation(_ line: Substring) -> Bool {
        line.wholeMatch(of: /::(error|warning|notice) file=[^:\n]*,line=[0-9]+,col=[0-9]+,title=[^:,\n]*::[^\n]*/) != nil
            && !line.dropFirst(2).contains("##[")
    }

    static func expectSafe(_ output: String, annotations: Bool = false, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(!output.unicodeScalars.contains(where: isRaw), "raw control in:\n\(output.debugDescription)", sourceLocation: sourceLocation)
        for line in output.split(separator: "\n") where isWorkflowCommand(line) {
            #expect(annotations && isOwnAnnotation(line), "forged workflow command: \(line.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test("human: the path, message, suggestion and source line are escaped; the report keeps its own lines")
    func human() {
        let report = LintReport(files: [Self.forged], findings: [Self.finding()])
        let source = "a:\u{1B}[2J \u{202E}b\u{2028}::c ##[error]d\n"
        for colour in [false, true] {
            let output = HumanFormatter(colour: colour) { _ in source }.render(report)
            let plain = colour ? output.replacing(/\x{1B}\[[0-9;]*m/, with: "") : output
            Self.expectSafe(plain)
            #expect(plain.split(separator: "\n", omittingEmptySubsequences: false).count == 6, "\(plain)")
            #expect(plain.hasPrefix("x\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}::error file=x::forged:1:3: error: unknown key 'x\\u{1B}"))
            #expect(plain.contains("    a:\\u{1B}[2J \\u{202E}b\\u{2028}::c ##\\u{5B}error]d\n"))
            #expect(plain.contains("suggestion: did you mean '\\u{202E}kcab'?\n"))
        }
    }

    @Test("human: the caret stays under the column when escapes before it widen the line")
    func caretAfterEscapes() {
        let (text, padding) = HumanFormatter.excerpt(of: "\u{1B}\u{202E}\tkey: x", column: 4)
        #expect(text == "\\u{1B}\\u{202E}\tkey: x")
        #expect(padding == String(repeating: " ", count: 14) + "\t")
        let (leading, leadingPadding) = HumanFormatter.excerpt(of: "  ::error::x", column: 5)
        #expect(leading == "  :\\u{3A}error::x")
        #expect(leadingPadding == String(repeating: " ", count: 9))
    }

    @Test("github: the file property and the message are escaped before the runner's own escaping")
    func github() {
        let report = LintReport(files: [Self.forged], findings: [Self.finding()])
        let output = GitHubFormatter.render(report)
        Self.expectSafe(output, annotations: true)
        let lines = output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("::error file=x\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}%3A%3Aerror file=x%3A%3Aforged,line=1,col=3,title=RP010::unknown key 'x\\u{1B}"))
        #expect(lines[0].hasSuffix("(did you mean '\\u{202E}kcab'?)"))
        let old = GitHubFormatter.render(LintReport(files: ["p.yaml"], findings: [Self.finding(file: "p.yaml", message: "##[error]forged")]))
        Self.expectSafe(old, annotations: true)
        #expect(old.contains("::##\\u{5B}error]forged"))
    }

    @Test("junit: control characters are shown as escapes, not dropped or turned into '?'")
    func junit() {
        let report = LintReport(files: [Self.forged], findings: [Self.finding()])
        let output = JUnitFormatter(strict: false).render(report)
        Self.expectSafe(output)
        #expect(output.contains("name=\"x\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}::error file=x::forged\""))
        #expect(!output.contains("?]0;"))
        #expect(output.contains("did you mean &apos;\\u{202E}kcab&apos;?"))
    }

    @Test("json and sarif keep the exact text: JSON encoding escapes controls, and a parser gets the name back")
    func encodedFormats() throws {
        let report = LintReport(files: [Self.forged], findings: [Self.finding()])
        let json = JSONFormatter.render(report)
        Self.expectSafe(json)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["files"] as? [String] == [Self.forged])
        let first = try #require((object["findings"] as? [[String: Any]])?.first)
        #expect(first["file"] as? String == Self.forged)
        #expect(first["message"] as? String == "unknown key '\(Self.forged) ##[error]'")
        #expect(first["suggestion"] as? String == "did you mean '\u{202E}kcab'?")

        let sarif = SARIFFormatter.render(report)
        Self.expectSafe(sarif)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(sarif.utf8)) as? [String: Any])
        let result = try #require(((document["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first)
        #expect((result["message"] as? [String: Any])?["text"] as? String == "unknown key '\(Self.forged) ##[error]' (did you mean '\u{202E}kcab'?)")
        let location = try #require((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
        let uri = try #require((location["artifactLocation"] as? [String: Any])?["uri"] as? String)
        #expect(uri.removingPercentEncoding == Self.forged)
    }

    @Test("a finding's and a diagnostic's description is one escaped line; message keeps the exact text")
    func descriptions() {
        let finding = Self.finding()
        #expect(!finding.description.unicodeScalars.contains(where: { DisplayText.isUnsafe($0) }))
        #expect(finding.description.hasPrefix("x\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}::error file=x::forged:1:3: error: "))
        #expect(finding.message == "unknown key '\(Self.forged) ##[error]'")
        let diagnostic = Diagnostic(
            id: "RP010", location: RetryPolicyCore.SourceLocation(file: "::p.yaml", line: 2, column: 1), message: "unknown key '\u{2066}a\r'",
            suggestion: "did you mean '\u{1B}[31m'?")
        #expect(diagnostic.description == ":\\u{3A}p.yaml:2:1: error: unknown key '\\u{2066}a\\u{D}' [RP010] (did you mean '\\u{1B}[31m'?)")
    }

    @Test("loader diagnostics escape the keys and values they quote (ESC, CR/LF, bidi controls)")
    func loaderDiagnostics() throws {
        let policy = """
            version: 1
            name: "n\\e]0;t\\a"
            attempts: 2
            "bak\\ecoff\\r\\n::error::x": {}
            "\\u202Eyek": 1
            rules:
              - {status: 503, error: status_5xx, action: "re\\u2066try\\e[2J"}
            default: {error: internal_error, action: stop}

            """
        let run = LintRun(root: .wholeFileSystem())
        let findings = run.lint(bytes: Array(policy.utf8), path: "p.yaml")
        #expect(findings.count >= 3, "\(findings)")
        let quoted = findings.filter { $0.message.unicodeScalars.contains(where: { DisplayText.isUnsafe($0) }) }
        #expect(quoted.count >= 3, "\(findings.map(\.message))")
        let report = LintReport(files: ["p.yaml"], findings: findings)
        for output in [
            HumanFormatter(colour: false) { _ in policy }.render(report), GitHubFormatter.render(report),
            JUnitFormatter(strict: true).render(report), findings.map(\.description).joined(separator: "\n"),
        ] {
            Self.expectSafe(output, annotations: output.hasPrefix("::"))
            #expect(output.contains("\\u{1B}"), "\(output)")
            #expect(output.contains("\\u{202E}") || output.contains("\\u{2066}"), "\(output)")
        }
        let human = HumanFormatter(colour: false) { _ in nil }.render(report)
        #expect(human.contains("bak\\u{1B}coff\\u{D}\\u{A}::error::x"), "\(human)")
    }

    @Test("table: names from the file cannot break a Markdown cell or the table's lines")
    func markdownCells() {
        #expect(MarkdownCell.text("a|b`c<!--d\\e\nf") == "a\\|b\\`c\\<!--d\\\\e\\\\u{A}f")
        #expect(MarkdownCell.code("Err.x") == "`Err.x`")
        #expect(MarkdownCell.code("a`b|c") == "``a`b\\|c``")
        #expect(MarkdownCell.code("`a``") == "``` `a`` ```")
        #expect(MarkdownCell.code("\u{202E}x\r") == "`\\u{202E}x\\u{D}`")
        #expect(MarkdownCell.text("a|\u{301}b") == "a\\|\u{301}b")
        #expect(MarkdownCell.code("a|\u{301}b") == "`a\\|\u{301}b`")
    }

    @Test("property: hostile names through the human and github formats never print a raw control or an extra line")
    func property() async {
        let alphabet: [Unicode.Scalar] = [
            "a", " ", "\t", ":", "#", "[", "]", "\u{1B}", "\u{7}", "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}", "\u{202E}",
            "\u{2067}", "\u{200F}", "\u{61C}", "\u{9B}", "\u{7F}", "\u{0}", "\u{FEFF}", "\\", "%", ",", "=", "é", "|", "`",
        ]
        let text = Gen.int(in: 0...alphabet.count - 1).array(of: 0...20).map { indices in
            var text = ""
            for index in indices { text.unicodeScalars.append(alphabet[index]) }
            return text
        }
        await propertyCheck(count: 300, input: text, text, text, text) { file, message, suggestion, line in
            let finding = LintFinding(
                id: "RP010", severity: .warning, location: RetryPolicyCore.SourceLocation(file: file, line: 1, column: 4),
                message: message, suggestion: suggestion.isEmpty ? nil : suggestion)
            let report = LintReport(files: [file], findings: [finding, finding])
            let source = "k" + line.filter { $0 != "\n" && $0 != "\r" && $0 != "\r\n" }
            let human = HumanFormatter(colour: false) { _ in source }.render(report)
            Self.expectSafe(human)
            let perFinding = 3 + (finding.suggestion == nil ? 0 : 1)
            #expect(human.split(separator: "\n", omittingEmptySubsequences: false).count == 2 * perFinding + 2)
            let github = GitHubFormatter.render(report)
            Self.expectSafe(github, annotations: true)
            #expect(github.split(separator: "\n", omittingEmptySubsequences: false).count == 4)
            #expect(github.split(separator: "\n").filter { $0.hasPrefix("::") }.allSatisfy(Self.isOwnAnnotation))
        }
    }
}
