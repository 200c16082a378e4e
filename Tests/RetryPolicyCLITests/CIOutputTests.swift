import Foundation
import Testing

/// What `lint` and `test` print for CI, run from a subdirectory of a
/// repository: paths from the repository's root, SARIF that validates,
/// exit statuses by fail level, quiet output.
@Suite("CI output of lint and test", .serialized)
struct CIOutputTests {
    /// A repository (a `.git` folder marks its top) with a policy that
    /// misspells `backoff` in `sub/dir`.
    static func repository(_ files: [String: String]) throws -> Workspace {
        let workspace = try Workspace(files)
        try FileManager.default.createDirectory(at: workspace.url.appendingPathComponent(".git"), withIntermediateDirectories: true)
        return workspace
    }

    static let misspelt = PolicyTexts.clean.replacingOccurrences(of: "backoff:", with: "bakoff:")

    static func run(_ arguments: [String], in workspace: Workspace, at directory: String) throws -> CLIResult {
        try CLI.run(arguments, in: workspace.url.appendingPathComponent(directory))
    }

    /// Validates `log` against the SARIF 2.1.0 schema subset in the
    /// fixtures and prints, per result, `uriBaseId uri line:column`, then
    /// the `%SRCROOT%` base.
    static func validatedSARIF(_ log: String, in workspace: Workspace) throws -> (status: Int32, output: String) {
        try workspace.write("report.sarif", log)
        let schema = CLI.fixtures.appendingPathComponent("sarif-schema-2.1.0-subset.json").path
        return try python("""
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            log = json.load(open(sys.argv[2]))
            jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(log)
            run = log["runs"][0]
            for result in run["results"]:
                location = result["locations"][0]["physicalLocation"]
                artifact = location["artifactLocation"]
                print(artifact.get("uriBaseId"), artifact["uri"], "%d:%d" % (location["region"]["startLine"], location["region"]["startColumn"]), result["ruleId"])
            print(run["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"].split(":")[0])
            """, arguments: [schema, workspace.path("report.sarif")])
    }

    // MARK: Paths from the root

    @Test("lint from a subdirectory names files from the repository's root in every format")
    func lintPathsFromRoot() throws {
        let workspace = try Self.repository(["sub/dir/bad.yaml": Self.misspelt])
        let github = try Self.run(["lint", "--format", "github", "bad.yaml"], in: workspace, at: "sub/dir")
        #expect(github.status == 1, "\(github)")
        #expect(github.stdout.hasPrefix("::error file=sub/dir/bad.yaml,line=6,col=1,title=RP010::unknown key 'bakoff'"), "\(github)")

        let sarif = try Self.run(["lint", "--format", "sarif", "bad.yaml"], in: workspace, at: "sub/dir")
        let validation = try Self.validatedSARIF(sarif.stdout, in: workspace)
        #expect(validation.status == 0, "\(validation.output)")
        #expect(validation.output == "%SRCROOT% sub/dir/bad.yaml 6:1 RP010\nThe root the files were read in\n", "\(validation.output)")

        let json = try Self.run(["lint", "--format", "json", "bad.yaml"], in: workspace, at: "sub/dir")
        #expect(json.stdout.contains("\"file\": \"sub/dir/bad.yaml\""), "\(json)")
        #expect(json.stdout.contains("\"files\": [\n    \"sub/dir/bad.yaml\"\n  ]"), "\(json)")

        let junit = try Self.run(["lint", "--format", "junit", "bad.yaml"], in: workspace, at: "sub/dir")
        #expect(junit.stdout.contains("name=\"sub/dir/bad.yaml\""), "\(junit)")

        // Human output names the same path and still quotes the line.
        let human = try Self.run(["lint", "bad.yaml"], in: workspace, at: "sub/dir")
        #expect(human.stdout.hasPrefix("sub/dir/bad.yaml:6:1: error: unknown key 'bakoff'"), "\(human)")
        #expect(human.stdout.contains("\n    bakoff:\n    ^\n"), "\(human)")
    }

    @Test("an absolute path, '..' and --root name files from the root too")
    func otherSpellings() throws {
        let workspace = try Self.repository(["sub/dir/bad.yaml": Self.misspelt, "other/x.txt": ""])
        let absolute = try Self.run(["lint", "--format", "github", workspace.path("sub/dir/bad.yaml")], in: workspace, at: "other")
        #expect(absolute.stdout.hasPrefix("::error file=sub/dir/bad.yaml,line=6"), "\(absolute)")
        let dotted = try Self.run(["lint", "--format", "github", "../sub/dir/./bad.yaml"], in: workspace, at: "other")
        #expect(dotted.stdout.hasPrefix("::error file=sub/dir/bad.yaml,line=6"), "\(dotted)")
        let rooted = try Self.run(["lint", "--format", "github", "--root", ".", "dir/bad.yaml"], in: workspace, at: "sub")
        #expect(rooted.stdout.hasPrefix("::error file=dir/bad.yaml,line=6"), "\(rooted)")
    }

    @Test("test --format github|sarif|junit|json: a failing case at its line in the tests file, named from the root")
    func testFormats() throws {
        let failing = """
            cases:
              - name: 503 stops
                status: 503
                expect: {action: stop}
              - name: 503 retries
                status: 503
                expect: {action: retry}

            """
        let workspace = try Self.repository(["sub/clean.yaml": PolicyTexts.clean, "sub/clean.tests.yaml": failing])
        let github = try Self.run(["test", "--format", "github", "clean.tests.yaml"], in: workspace, at: "sub")
        #expect(github.status == 1, "\(github)")
        #expect(github.stdout == """
            ::error file=sub/clean.tests.yaml,line=2,col=5,title=policy-test-failed::case '503 stops' failed: action: expected stop, got retry (actual: retry after 0s-1s [status_5xx])
            1 test file, 2 cases: 1 passed, 1 failed

            """, "\(github)")

        let sarif = try Self.run(["test", "--format", "sarif", "clean.tests.yaml"], in: workspace, at: "sub")
        #expect(sarif.status == 1)
        let validation = try Self.validatedSARIF(sarif.stdout, in: workspace)
        #expect(validation.status == 0, "\(validation.output)")
        #expect(validation.output == "%SRCROOT% sub/clean.tests.yaml 2:5 policy-test-failed\nThe root the files were read in\n", "\(validation.output)")

        let junit = try Self.run(["test", "--format", "junit", "clean.tests.yaml"], in: workspace, at: "sub")
        #expect(junit.stdout.contains("<testcase classname=\"sub/clean.tests.yaml\" name=\"503 stops\" file=\"sub/clean.tests.yaml\" line=\"2\">\n      <failure"), "\(junit)")

        let json = try Self.run(["test", "--format", "json", "clean.tests.yaml"], in: workspace, at: "sub")
        #expect(json.stdout.contains("\"file\": \"sub/clean.tests.yaml\""), "\(json)")

        let human = try Self.run(["test", "clean.tests.yaml"], in: workspace, at: "sub")
        #expect(human.stdout.contains("  sub/clean.tests.yaml:2:5: case '503 stops' failed\n"), "\(human)")
    }

    @Test("test --format github: an invalid tests file is an annotation at its first problem")
    func invalidTestsFileAnnotation() throws {
        let broken = """
            cases:
              - name: typo
                status: 503
                expekt: {action: retry}

            """
        let workspace = try Self.repository(["sub/clean.yaml": PolicyTexts.clean, "sub/clean.tests.yaml": broken])
        let github = try Self.run(["test", "--format", "github", "--quiet", "clean.tests.yaml"], in: workspace, at: "sub")
        #expect(github.status == 1, "\(github)")
        #expect(github.stdout.hasPrefix("::error file=sub/clean.tests.yaml,line="), "\(github)")
        #expect(github.stdout.contains(",title=policy-test-invalid::invalid tests file: "), "\(github)")
        #expect(github.stdout.contains("sub/clean.tests.yaml:4:5: error: ") && github.stdout.contains("expekt"), "\(github)")
        #expect(github.stdout.split(separator: "\n").count == 1, "\(github)")
    }

    // MARK: Fail level, quiet, exit statuses

    @Test("--fail-level: which severity fails the run; an unknown level is a usage error")
    func failLevel() throws {
        // No breaker and no budget: a note (RP121), nothing more severe.
        let noted = PolicyTexts.clean.replacingOccurrences(of: "breaker: {}\n", with: "")
        let workspace = try Workspace(["noted.yaml": noted, "problems.yaml": PolicyTexts.problems])
        let plain = try workspace.run(["lint", "noted.yaml"])
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout.contains("note:"), "\(plain)")
        #expect(try workspace.run(["lint", "--fail-level", "warning", "noted.yaml"]).status == 0)
        #expect(try workspace.run(["lint", "--fail-level", "note", "noted.yaml"]).status == 1)
        #expect(try workspace.run(["lint", "problems.yaml"]).status == 0)
        #expect(try workspace.run(["lint", "--fail-level", "warning", "problems.yaml"]).status == 1)
        #expect(try workspace.run(["lint", "--fail-level", "error", "--strict", "problems.yaml"]).status == 1)
        let junit = try workspace.run(["lint", "--format", "junit", "--fail-level", "note", "noted.yaml"])
        #expect(junit.stdout.contains("failures=\"1\""), "\(junit)")
        let unknown = try workspace.run(["lint", "--fail-level", "fatal", "noted.yaml"])
        #expect(unknown.status == 2, "\(unknown)")
        #expect(try workspace.run(["lint", "missing-folder"]).status == 2)
    }

    @Test("--quiet prints only problems: no summary, no passing files")
    func quiet() throws {
        let workspace = try Workspace([
            "clean.yaml": PolicyTexts.clean, "problems.yaml": PolicyTexts.problems,
            "clean.tests.yaml": "cases:\n  - name: 503 retries\n    status: 503\n    expect: {action: retry}\n",
            "problems.tests.yaml": "cases:\n  - name: 503 stops\n    status: 503\n    expect: {action: stop}\n",
        ])
        let clean = try workspace.run(["lint", "--quiet", "clean.yaml"])
        #expect(clean.status == 0 && clean.stdout == "", "\(clean)")
        let problems = try workspace.run(["lint", "--quiet", "problems.yaml"])
        #expect(problems.stdout.hasPrefix("problems.yaml:9:3: warning:") && !problems.stdout.contains(" in 1 file"), "\(problems)")
        let github = try workspace.run(["lint", "--quiet", "--format", "github", "clean.yaml"])
        #expect(github.stdout == "", "\(github)")
        let tests = try workspace.run(["test", "--quiet", "."])
        #expect(tests.status == 1, "\(tests)")
        #expect(tests.stdout.hasPrefix("FAIL problems.tests.yaml: 1 of 1 case failed\n"), "\(tests)")
        #expect(!tests.stdout.contains("PASS") && !tests.stdout.contains("passed"), "\(tests)")
        let passing = try workspace.run(["test", "--quiet", "clean.tests.yaml"])
        #expect(passing.status == 0 && passing.stdout == "", "\(passing)")
    }
}
