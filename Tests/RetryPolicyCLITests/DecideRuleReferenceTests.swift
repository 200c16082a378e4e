import Foundation
import Testing

/// The rule `decide` names is one a tests file's `rule:` takes back.
@Suite("decide's rule locations in tests files")
struct DecideRuleReferenceTests {
    static let tmdb = try! String(contentsOf: CLI.packageRoot.appendingPathComponent("policies/tmdb.yaml"), encoding: .utf8)

    static func tests(rule: String) -> String {
        """
        policy: tmdb.yaml
        cases:
          - name: 503 is retried by the 5xx rule
            status: 503
            expect:
              action: retry
              rule: \(rule)

        """
    }

    @Test("the location decide prints, in either form, passes as the expected rule")
    func roundTrip() throws {
        let workspace = try Workspace(["policies/tmdb.yaml": Self.tmdb])
        let json = try workspace.run(["decide", "policies/tmdb.yaml", "--status", "503", "--format", "json"])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let printed = try #require(decoded["rule"] as? String)
        #expect(printed == "policies/tmdb.yaml:39")
        let human = try workspace.run(["decide", "policies/tmdb.yaml", "--status", "503"])
        #expect(human.stdout.contains("the rule at \(printed),"), "\(human)")
        for rule in [printed, "\"\(printed)\"", "tmdb.yaml:39", "39", "policies/tmdb.yaml:39:5"] {
            try workspace.write("policies/tmdb.tests.yaml", Self.tests(rule: rule))
            let result = try workspace.run(["test", "policies/tmdb.tests.yaml"])
            #expect(result.status == 0, "rule: \(rule)\n\(result)")
        }
    }

    @Test("another line, column or file fails the case; a malformed reference is a located error")
    func mismatches() throws {
        let workspace = try Workspace(["policies/tmdb.yaml": Self.tmdb])
        for (rule, expected) in [
            ("policies/tmdb.yaml:32", "policies/tmdb.yaml:32"), ("policies/tmdb.yaml:39:7", "policies/tmdb.yaml:39:7"),
            ("policies/base.yaml:39", "policies/base.yaml:39"), ("40", "line 40"),
        ] {
            try workspace.write("policies/tmdb.tests.yaml", Self.tests(rule: rule))
            let result = try workspace.run(["test", "policies/tmdb.tests.yaml"])
            #expect(result.status == 1, "rule: \(rule)\n\(result)")
            #expect((result.stdout + result.stderr).contains(expected), "rule: \(rule)\n\(result)")
        }
        for rule in ["tmdb.yaml", "tmdb.yaml:0", ":39", "[39]"] {
            try workspace.write("policies/tmdb.tests.yaml", Self.tests(rule: rule))
            let result = try workspace.run(["test", "policies/tmdb.tests.yaml"])
            #expect(result.status != 0, "rule: \(rule)\n\(result)")
            #expect((result.stdout + result.stderr).contains("policies/tmdb.tests.yaml:7:"), "rule: \(rule)\n\(result)")
            #expect((result.stdout + result.stderr).contains("or a location as decide prints it (policies/tmdb.yaml:39)"), "rule: \(rule)\n\(result)")
        }
    }
}
