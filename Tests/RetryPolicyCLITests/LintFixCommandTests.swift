import Foundation
import Testing

/// `lint --fix` and `lint --diff`, run as a user runs them.
@Suite("retry-policy lint --fix and --diff", .serialized)
struct LintFixCommandTests {
    /// `max` below `initial` (RP104, an error) and `jitter: none` (RP107),
    /// with comments that must survive.
    static let fixable = """
        version: 1
        name: fixable
        attempts: 3
        idempotency:
          methods: [GET]
        backoff:
          initial: 2s   # the first wait
          max: 1s
          jitter: none  # keep in sync with the client
        retry_after:
          cap: 30s
        rules:
          - status: 5xx
            error: status_5xx
            action: retry
        default:
          error: network_error
          action: stop
        breaker: {}

        """

    static let fixed = fixable.replacingOccurrences(of: "max: 1s", with: "max: 2s")
        .replacingOccurrences(of: "jitter: none ", with: "jitter: full ")

    @Test("--diff prints the unified diff of the fixes, named from the root, and writes nothing")
    func diff() throws {
        let workspace = try Workspace(["sub/fixable.yaml": Self.fixable])
        try FileManager.default.createDirectory(at: workspace.url.appendingPathComponent(".git"), withIntermediateDirectories: true)
        let result = try CLI.run(["lint", "--diff", "fixable.yaml"], in: workspace.url.appendingPathComponent("sub"))
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout == """
            --- a/sub/fixable.yaml
            +++ b/sub/fixable.yaml
            @@ -5,8 +5,8 @@
               methods: [GET]
             backoff:
               initial: 2s   # the first wait
            -  max: 1s
            -  jitter: none  # keep in sync with the client
            +  max: 2s
            +  jitter: full  # keep in sync with the client
             retry_after:
               cap: 30s
             rules:

            """, "\(result)")
        #expect(result.stderr == "", "\(result)")
        #expect(try String(contentsOfFile: workspace.path("sub/fixable.yaml"), encoding: .utf8) == Self.fixable)
        // The diff applies with patch(1) and gives what --fix writes.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/patch") {
            try workspace.write("fix.diff", result.stdout)
            let patch = Process()
            patch.executableURL = URL(fileURLWithPath: "/usr/bin/patch")
            patch.arguments = ["-p1", "--dry-run", "-i", "fix.diff"]
            patch.currentDirectoryURL = workspace.url
            patch.standardOutput = FileHandle.nullDevice
            try patch.run()
            #expect(patch.waitForExit() == 0)
        }
        let clean = try workspace.run(["lint", "--diff", "sub/fixable.yaml".replacingOccurrences(of: "fixable", with: "none")])
        #expect(clean.status == 2, "a missing file is a usage error: \(clean)")
    }

    @Test("--diff with nothing to fix prints nothing and exits 0")
    func diffNothing() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["lint", "--diff", "clean.yaml"])
        #expect(result.status == 0 && result.stdout == "", "\(result)")
    }

    @Test("--fix edits only the fixed text, keeps comments, then reports what remains")
    func fix() throws {
        let workspace = try Workspace(["fixable.yaml": Self.fixable])
        let before = try workspace.run(["lint", "fixable.yaml"])
        #expect(before.status == 1 && before.stdout.contains("[RP104]") && before.stdout.contains("[RP107]"), "\(before)")
        let result = try workspace.run(["lint", "--fix", "fixable.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr == "fixed 2 problems in 1 file\n", "\(result)")
        #expect(!result.stdout.contains("[RP104]") && !result.stdout.contains("[RP107]"), "\(result)")
        #expect(try String(contentsOfFile: workspace.path("fixable.yaml"), encoding: .utf8) == Self.fixed)
        let again = try workspace.run(["lint", "--diff", "fixable.yaml"])
        #expect(again.status == 0 && again.stdout == "", "\(again)")
    }

    @Test("--fix never writes through a symbolic link: the target stays as it was")
    func fixRefusesLink() throws {
        let workspace = try Workspace(["real.yaml": Self.fixable])
        try FileManager.default.createSymbolicLink(atPath: workspace.path("link.yaml"), withDestinationPath: "real.yaml")
        let result = try workspace.run(["lint", "--fix", "link.yaml"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("link.yaml") && result.stderr.contains("link"), "\(result)")
        #expect(try String(contentsOfFile: workspace.path("real.yaml"), encoding: .utf8) == Self.fixable)
        let attributes = try FileManager.default.attributesOfItem(atPath: workspace.path("link.yaml"))
        #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink)
    }

    @Test("overlapping fixes: the first is applied, the other reported; a second --fix applies it")
    func overlapping() throws {
        let policy = PolicyTexts.clean.replacingOccurrences(
            of: "attempts: 3\n", with: "attempts: 3  # retry-policy: disable=RP101,RP105\n")
        let workspace = try Workspace(["clean.yaml": policy])
        let first = try workspace.run(["lint", "--fix", "clean.yaml"])
        #expect(first.stderr == """
            fixed 1 problem in 1 file
            clean.yaml:3:14: RP116: fix not applied: its edit overlaps another fix; run lint --fix again

            """, "\(first)")
        #expect(first.stdout.contains("suppression of RP105 silences nothing"), "\(first)")
        #expect(try String(contentsOfFile: workspace.path("clean.yaml"), encoding: .utf8)
            == policy.replacingOccurrences(of: "disable=RP101,RP105", with: "disable=RP105"))
        let second = try workspace.run(["lint", "--fix", "clean.yaml"])
        #expect(second.stdout == "0 errors, 0 warnings, 0 notes in 1 file\n", "\(second)")
        #expect(try String(contentsOfFile: workspace.path("clean.yaml"), encoding: .utf8) == PolicyTexts.clean)
    }

    @Test("--fix and --diff together, or on standard input, are usage errors")
    func usage() throws {
        let workspace = try Workspace(["fixable.yaml": Self.fixable])
        #expect(try workspace.run(["lint", "--fix", "--diff", "fixable.yaml"]).status == 2)
        let stdin = try workspace.run(["lint", "--fix", "-"], input: Self.fixable)
        #expect(stdin.status == 2 && stdin.stderr.contains("standard input"), "\(stdin)")
    }

    @Test("JSON and SARIF carry the fixes as edits")
    func fixesInReports() throws {
        let workspace = try Workspace(["fixable.yaml": Self.fixable])
        let json = try workspace.run(["lint", "--format", "json", "fixable.yaml"])
        let fixes = try python("""
            import json, sys
            for finding in json.loads(sys.argv[1])["findings"]:
                fix = finding["fix"]
                if fix is None: continue
                edit = fix["edits"][0]
                print(finding["id"], fix["description"], "|", edit["file"], edit["start"], edit["end"], edit["replacement"])
            """, arguments: [json.stdout])
        #expect(fixes.output == """
            RP104 set backoff.max to 2s, the initial delay | fixable.yaml {'line': 8, 'column': 8, 'offset': 116} {'line': 8, 'column': 10, 'offset': 118} 2s
            RP107 set backoff.jitter to full | fixable.yaml {'line': 9, 'column': 11, 'offset': 129} {'line': 9, 'column': 15, 'offset': 133} full

            """, "\(fixes.output)")
        let sarif = try workspace.run(["lint", "--format", "sarif", "fixable.yaml"])
        try workspace.write("report.sarif", sarif.stdout)
        let schema = CLI.fixtures.appendingPathComponent("sarif-schema-2.1.0-subset.json").path
        let check = try python("""
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            log = json.load(open(sys.argv[2]))
            jsonschema.Draft7Validator(schema).validate(log)
            for result in log["runs"][0]["results"]:
                for fix in result.get("fixes", []):
                    change = fix["artifactChanges"][0]
                    region = change["replacements"][0]["deletedRegion"]
                    print(result["ruleId"], change["artifactLocation"]["uri"], change["artifactLocation"]["uriBaseId"],
                          region["startLine"], region["startColumn"], region["endLine"], region["endColumn"],
                          change["replacements"][0]["insertedContent"]["text"])
            """, arguments: [schema, workspace.path("report.sarif")])
        #expect(check.output == "RP104 fixable.yaml %SRCROOT% 8 8 8 10 2s\nRP107 fixable.yaml %SRCROOT% 9 11 9 15 full\n", "\(check.output)")
    }
}
