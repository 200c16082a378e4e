import Foundation
import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

/// `retry-policy test` runs on untrusted pull requests: a case name, a test
/// file's path or an expected value must not steer the terminal or forge a
/// line (a fake PASS, a fake `::error` annotation) in any report form.
@Suite("Policy test reports show text from files safely")
struct PolicyTestReportDisplayTests {
    static let forged = "x\u{1B}]0;owned\u{7}\r\n::error file=x::forged \u{202E}##[error]y"

    static func report() -> PolicyTestReport {
        let location = RetryPolicyCore.SourceLocation(file: "\u{1B}[2J::t.tests.yaml", line: 3, column: 5)
        let suite = PolicyTestSuite(
            path: "\u{1B}[2J::t.tests.yaml", policyReference: "clean.yaml",
            cases: [
                DecisionCase(
                    name: forged, location: location, input: DecisionInput(outcome: .status(503)),
                    expect: DecisionExpectation(action: .stop, error: "e\r\n::warning::w")),
                DecisionCase(name: "passes \u{2067}", location: at(9), input: DecisionInput(outcome: .status(503)), expect: DecisionExpectation(action: .retry)),
            ],
            sequences: [])
        let result = PolicyTestRunner.run(suite, policy: cleanPolicy())
        return PolicyTestReport(
            fileCount: 2, results: [result],
            invalid: [.init(file: "::bad\u{85}.tests.yaml", problems: ["::error::\u{1B}[31mproblem\ru"])])
    }

    static func expectSafe(_ output: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(
            !output.unicodeScalars.contains(where: { $0 != "\n" && DisplayText.isUnsafe($0) }),
            "raw control in:\n\(output.debugDescription)", sourceLocation: sourceLocation)
        for line in output.split(separator: "\n") {
            #expect(!line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("::"), "\(line.debugDescription)", sourceLocation: sourceLocation)
            #expect(!line.contains("##["), "\(line.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test("text: names, paths, expected values and problems are escaped; the report keeps its own lines")
    func text() {
        let text = Self.report().text
        Self.expectSafe(text)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // FAIL, the case, two mismatches, actual, ERROR, its problem, the summary, and the final empty line.
        #expect(lines.count == 9, "\(text)")
        #expect(lines[0] == "FAIL \\u{1B}[2J::t.tests.yaml: 1 of 2 cases failed")
        #expect(lines[1] == "  \\u{1B}[2J::t.tests.yaml:3:5: case 'x\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}::error file=x::forged \\u{202E}##\\u{5B}error]y' failed")
        #expect(lines[3] == "      error: expected e\\u{D}\\u{A}::warning::w, got status_5xx")
        #expect(lines[5] == "ERROR :\\u{3A}bad\\u{85}.tests.yaml:")
        #expect(lines[6] == "  :\\u{3A}error::\\u{1B}[31mproblem\\u{D}u")
    }

    @Test("a failure's description is one escaped line")
    func failureDescription() throws {
        let failure = try #require(Self.report().results.first?.failures.first)
        let description = failure.description
        #expect(!description.unicodeScalars.contains(where: { DisplayText.isUnsafe($0) }))
        #expect(description.hasPrefix("\\u{1B}[2J::t.tests.yaml:3:5: case 'x\\u{1B}]0;owned"))
        #expect(description.contains("error: expected e\\u{D}\\u{A}::warning::w, got status_5xx"))
    }

    @Test("junit: escapes stay visible inside the XML instead of being dropped")
    func junit() {
        let junit = Self.report().junit
        Self.expectSafe(junit)
        #expect(junit.contains("name=\"x\\u{1B}]0;owned\\u{7}\\u{D}\\u{A}::error file=x::forged \\u{202E}##\\u{5B}error]y\""))
        #expect(junit.contains("<testsuite name=\"\\u{1B}[2J::t.tests.yaml\""))
        #expect(junit.contains(">:\\u{3A}error::\\u{1B}[31mproblem\\u{D}u</error>"))
        #expect(!junit.contains("?]0;"))
    }

    @Test("json keeps the exact names: a parser gets them back")
    func json() throws {
        let rendered = Self.report().json.rendered()
        Self.expectSafe(rendered)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(rendered.utf8)) as? [String: Any])
        let file = try #require((object["files"] as? [[String: Any]])?.first)
        #expect(file["file"] as? String == "\u{1B}[2J::t.tests.yaml")
        let failure = try #require((file["failures"] as? [[String: Any]])?.first)
        #expect(failure["name"] as? String == Self.forged)
        let mismatch = try #require((failure["mismatches"] as? [[String: Any]])?.first { $0["field"] as? String == "error" })
        #expect(mismatch["expected"] as? String == "e\r\n::warning::w")
        let invalid = try #require((object["invalid"] as? [[String: Any]])?.first)
        #expect(invalid["problems"] as? [String] == ["::error::\u{1B}[31mproblem\ru"])
    }
}
