import Foundation
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyYAML
import Testing

@testable import RetryPolicyLint

@Suite("Suppressions, configuration and report formats")
struct ReportingTests {
    let finding = LintFinding(id: "RP107", severity: .warning, location: at(3, column: 3), message: "no jitter", suggestion: "set jitter")

    @Test("a trailing comment silences its own line; a comment alone silences the next code line")
    func suppressionScopes() {
        let source = "a: 1\n# retry-policy: disable=RP101\n\n  b: 2  # retry-policy: disable=RP107\nc: 3\n"
        let suppressions = Suppressions(source: source, file: "policy.yaml")
        #expect(suppressions.entries.map(\.id) == ["RP101", "RP107"])
        let onFour = LintFinding(id: "RP107", severity: .warning, location: at(4), message: "x")
        let onFourOther = LintFinding(id: "RP101", severity: .warning, location: at(4), message: "y")
        let kept = suppressions.apply(to: [onFour, onFourOther])
        #expect(kept.isEmpty)
    }

    @Test("a suppression that silences nothing becomes RP116 at the comment")
    func unusedSuppression() {
        let suppressions = Suppressions(source: "a: 1   # retry-policy: disable=RP105,RP107\n", file: "policy.yaml")
        let kept = suppressions.apply(to: [LintFinding(id: "RP107", severity: .warning, location: at(1), message: "x")])
        #expect(kept.count == 1)
        #expect(kept[0].id == "RP116")
        #expect(kept[0].location == SourceLocation(file: "policy.yaml", line: 1, column: 8))
        #expect(kept[0].message == "suppression of RP105 silences nothing: no RP105 finding on line 1")
    }

    @Test("a '#' inside quotes or a word is not a comment")
    func notComments() {
        #expect(Suppressions(source: "name: \"x # retry-policy: disable=RP101\"\n", file: "p").entries.isEmpty)
        #expect(Suppressions(source: "name: a#retry-policy: disable=RP101\n", file: "p").entries.isEmpty)
        #expect(Suppressions(source: "# retry-policy: enable=RP101\n", file: "p").entries.isEmpty)
    }

    @Test("configuration changes severity or removes a rule")
    func configuration() {
        let raise = LintConfiguration(severities: ["RP107": .some(.error)])
        #expect(raise.apply(to: [finding]).map(\.severity) == [.error])
        let off = LintConfiguration(severities: ["RP107": Diagnostic.Severity?.none])
        #expect(off.apply(to: [finding]).isEmpty)
    }

    @Test("human format: location, severity, message, id, source line, caret under the column, suggestion")
    func human() {
        let report = LintReport(files: ["policy.yaml"], findings: [finding])
        let plain = HumanFormatter(colour: false) { _ in "a: 1\nb: 2\n\tbackoff: x\n" }.render(report)
        #expect(plain == """
            policy.yaml:3:3: warning: no jitter [RP107]
                \tbackoff: x
                \t ^
                suggestion: set jitter
            0 errors, 1 warning, 0 notes in 1 file

            """)
        let coloured = HumanFormatter(colour: true) { _ in nil }.render(report)
        #expect(coloured.contains("\u{1B}[1;33mwarning:\u{1B}[0m"))
        // Every styled piece, byte for byte: location and message bold, the
        // severity in its colour, the suggestion's label cyan.
        let error = LintFinding(id: "RP101", severity: .error, location: at(9, column: 1), message: "dead", suggestion: "delete it")
        let styled = HumanFormatter(colour: true) { _ in nil }.render(LintReport(files: [], findings: [error]), quiet: true)
        #expect(styled == "\u{1B}[1mpolicy.yaml:9:1:\u{1B}[0m \u{1B}[1;31merror:\u{1B}[0m \u{1B}[1mdead\u{1B}[0m [RP101]\n"
            + "    \u{1B}[36msuggestion:\u{1B}[0m delete it\n")
    }

    @Test("github format escapes data and properties as the runner does, after DisplayText made line breaks visible")
    func github() {
        let odd = LintFinding(id: "RP101", severity: .error, location: SourceLocation(file: "a,b:c.yaml", line: 2, column: 1), message: "50% done\nnext")
        let text = GitHubFormatter.render(LintReport(files: [], findings: [odd]))
        #expect(text.hasPrefix("::error file=a%2Cb%3Ac.yaml,line=2,col=1,title=RP101::50%25 done\\u{A}next\n"))
        #expect(GitHubFormatter.data("a%b\r\nc") == "a%25b%0D%0Ac")
        #expect(GitHubFormatter.property("x:y,z\r\n") == "x%3Ay%2Cz%0D%0A")
        let note = LintFinding(id: "RP114", severity: .note, location: at(1), message: "m")
        #expect(GitHubFormatter.render(LintReport(files: [], findings: [note])).hasPrefix("::notice "))
    }

    @Test("sarif carries rule metadata for every referenced rule and indexes results into it")
    func sarif() {
        let loader = LintFinding(id: "RP010", severity: .error, location: at(1), message: "unknown key")
        let text = SARIFFormatter.render(LintReport(files: ["policy.yaml"], findings: [finding, loader]))
        #expect(text.contains("\"version\": \"2.1.0\""))
        #expect(text.contains("\"id\": \"RP010\""))
        #expect(text.contains("\"name\": \"retry-without-jitter\""))
        #expect(text.contains("\"ruleId\": \"RP107\",\n          \"ruleIndex\": 1,\n          \"level\": \"warning\""))
        #expect(SARIFFormatter.uri("/abs/p a.yaml") == "file:///abs/p%20a.yaml")
    }

    @Test("every rule's helpUri points at an anchor that exists in the documentation, under one base")
    func helpURIsResolve() throws {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var pages: [String: String] = [:]
        let rules = LoaderRule.allCases.map { LintCatalog.loaderRule(id: $0.id) } + LintCatalog.rules
        #expect(rules.count > 30)
        for rule in rules {
            let uri = SARIFFormatter.helpURI(for: rule)
            #expect(uri.hasPrefix(SARIFFormatter.documentationBaseURI), "\(uri)")
            #expect(SARIFFormatter.documentationBaseURI.hasPrefix("https://"))
            let relative = uri.dropFirst(SARIFFormatter.documentationBaseURI.count)
            let parts = relative.split(separator: "#", omittingEmptySubsequences: false)
            try #require(parts.count == 2, "\(uri)")
            let page = String(parts[0])
            let anchor = String(parts[1])
            #expect(anchor == rule.id.lowercased())
            if pages[page] == nil {
                pages[page] = try String(contentsOf: repository.appendingPathComponent("docs/" + page), encoding: .utf8)
            }
            // The anchor sits in the rule's own table row.
            let row = "| <a id=\"\(anchor)\"></a>\(rule.id) |"
            #expect(pages[page]!.contains(row), "docs/\(page) has no row \(row) for \(rule.id)")
        }
        #expect(Set(pages.keys) == ["cli.md", "policy-files.md"])
    }

    @Test("sarif rules carry their helpUri, between the descriptions and the help text")
    func sarifHelpURI() {
        let text = SARIFFormatter.render(LintReport(files: ["policy.yaml"], findings: [finding]))
        let base = SARIFFormatter.documentationBaseURI
        #expect(base == "https://github.com/swift-retry-policy/swift-retry-policy/blob/\(RetryPolicyVersion.current)/docs/")
        #expect(text.contains("\"helpUri\": \"\(base)cli.md#rp107\",\n              \"help\": {"), "\(text)")
        let loader = SARIFFormatter.render(LintReport(files: ["policy.yaml"], findings: [
            LintFinding(id: "RP010", severity: .error, location: at(1), message: "unknown key"),
        ]))
        #expect(loader.contains("\"helpUri\": \"\(base)policy-files.md#rp010\""))
    }

    @Test("json values render deterministically and escape control characters")
    func jsonValue() {
        let value: JSONValue = .object([("b", 1), ("a", .array(["x\n\"y\"", .null, .bool(true), .double(1.5)]))])
        #expect(value.rendered(pretty: false) == "{\"b\":1,\"a\":[\"x\\n\\\"y\\\"\",null,true,1.5]}")
        #expect(JSONValue.string("\u{1}").rendered() == "\"\\u0001\"")
    }

    @Test("junit escapes XML and fails a file only on errors unless strict")
    func junit() {
        let warning = LintFinding(id: "RP107", severity: .warning, location: SourceLocation(file: "a<b>.yaml", line: 1, column: 1), message: "\"q\" & more")
        let lenient = JUnitFormatter(strict: false).render(LintReport(files: ["a<b>.yaml"], findings: [warning]))
        #expect(lenient.contains("failures=\"0\""))
        #expect(lenient.contains("name=\"a&lt;b&gt;.yaml\""))
        #expect(lenient.contains("&quot;q&quot; &amp; more"))
        let strict = JUnitFormatter(strict: true).render(LintReport(files: ["a<b>.yaml"], findings: [warning]))
        #expect(strict.contains("failures=\"1\""))
        #expect(strict.contains("<failure type=\"RP107\""))
    }
}
