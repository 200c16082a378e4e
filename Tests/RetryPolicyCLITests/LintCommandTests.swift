import ChildProcessSupport
import Foundation
import Testing

@Suite("retry-policy lint", .serialized)
struct LintCommandTests {
    @Test("a clean policy exits 0 and says so")
    func clean() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["lint", "clean.yaml"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "0 errors, 0 warnings, 0 notes in 1 file\n")
    }

    @Test("human output: file:line:col, severity, id, the source line and a caret; no colour when not a terminal")
    func human() throws {
        let workspace = try Workspace(["problems.yaml": PolicyTexts.problems])
        let result = try workspace.run(["lint", "problems.yaml"])
        #expect(result.status == 0, "warnings alone do not fail without --strict: \(result)")
        #expect(result.stdout.contains("problems.yaml:16:5: warning: rule at line 16 can never match: rule at line 13 already matches every input it matches [RP101]\n      - status: 503\n        ^\n    suggestion: move it above rule at line 13 or delete it\n"), "\(result)")
        #expect(result.stdout.hasPrefix("problems.yaml:9:3: warning: retries use no jitter: every client waits exactly 1s, 2s and retries at the same instant [RP107]\n      jitter: none\n      ^\n"), "\(result)")
        #expect(!result.stdout.contains("\u{1B}["))
        #expect(result.stdout.hasSuffix("0 errors, 3 warnings, 0 notes in 1 file\n"), "\(result)")
    }

    @Test("colour appears on a terminal (a pseudo-terminal from script(1)) and never with --no-color",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed"))
    func colourOnTerminal() throws {
        let workspace = try Workspace(["problems.yaml": PolicyTexts.problems])
        func onTerminal(_ arguments: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", "\(CLI.binary.path) \(arguments)", "/dev/null"]
            process.currentDirectoryURL = workspace.url
            // The test runner may itself ask for no colour; the tool must decide by the terminal alone.
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "NO_COLOR")
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            _ = process.waitForExit()
            return String(decoding: data, as: UTF8.self)
        }
        let coloured = try onTerminal("lint problems.yaml")
        #expect(coloured.contains("\u{1B}[1;33mwarning:\u{1B}[0m"), "\(coloured)")
        let plain = try onTerminal("lint --no-color problems.yaml")
        #expect(plain.contains("warning:") && !plain.contains("\u{1B}["), "\(plain)")
    }

    @Test("--strict fails on warnings")
    func strict() throws {
        let workspace = try Workspace(["problems.yaml": PolicyTexts.problems])
        #expect(try workspace.run(["lint", "--strict", "problems.yaml"]).status == 1)
    }

    @Test("a structural error from the loader exits 1 with its RP0xx id")
    func loaderError() throws {
        let workspace = try Workspace(["broken.yaml": PolicyTexts.clean.replacingOccurrences(of: "backoff:", with: "bakoff:")])
        let result = try workspace.run(["lint", "broken.yaml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("broken.yaml:6:1: error:"), "\(result)")
        #expect(result.stdout.contains("[RP010]"))
    }

    @Test("directories are searched recursively; *.tests.yaml and dotfiles are skipped")
    func directories() throws {
        let workspace = try Workspace([
            "policies/a.yaml": PolicyTexts.clean,
            "policies/nested/b.yml": PolicyTexts.cleanTwin,
            "policies/a.tests.yaml": "not: [a policy",
            "policies/.hidden.yaml": "not: [a policy",
            "policies/.git/x.yaml": "not: [a policy",
            "policies/readme.txt": "text",
        ])
        let result = try workspace.run(["lint", "--format", "json", "policies"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\"files\": [\n    \"policies/a.yaml\",\n    \"policies/nested/b.yml\"\n  ]"), "\(result)")
    }

    @Test("a missing path is a usage/I-O error: exit 2")
    func missingPath() throws {
        let workspace = try Workspace([:])
        let result = try workspace.run(["lint", "nope.yaml"])
        #expect(result.status == 2)
        #expect(result.stderr == "error: nope.yaml: no such file or directory\n")
    }

    @Test("- reads one policy from standard input, for lint, decide and test")
    func standardInput() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let lint = try workspace.run(["lint", "-"], input: "version: 1\nname: x\nattemps: 3\n")
        #expect(lint.status == 1)
        #expect(lint.stdout.hasPrefix("<stdin>:3:1: error: unknown key 'attemps'"), "\(lint)")
        let clean = try workspace.run(["lint", "-", "clean.yaml"], input: PolicyTexts.clean)
        #expect(clean.status == 0 && clean.stdout.contains("in 2 files"), "\(clean)")
        let decide = try workspace.run(["decide", "-", "--status", "503", "--format", "json"], input: PolicyTexts.clean)
        #expect(decide.status == 0 && decide.stdout.contains("\"action\""), "\(decide)")
        let test = try workspace.run(
            ["test", "-"], input: "policy: clean.yaml\ncases:\n  - {name: ok, status: 200, expect: {action: success}}\n")
        #expect(test.status == 0 && test.stdout.contains("PASS <stdin>: 1 case passed"), "\(test)")
        // Standard input is read no further than the size limit plus one byte.
        let large = try workspace.run(["lint", "-"], input: "# " + String(repeating: "x", count: 3 << 20) + "\n")
        #expect(large.status == 1 && large.stdout.contains("<stdin>:1:1: error: expected a policy file of at most 1048576 bytes, found more on standard input [RP003]"), "\(large)")
    }

    @Test("an endless standard input (yes(1) piped in) is refused after the size limit, not read forever",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/yes"), "yes(1) is not installed"))
    func endlessStandardInput() throws {
        let producer = Process()
        producer.executableURL = URL(fileURLWithPath: "/usr/bin/yes")
        producer.arguments = ["# endless"]
        let pipe = Pipe()
        producer.standardOutput = pipe
        let lint = Process()
        lint.executableURL = CLI.binary
        lint.arguments = ["lint", "-"]
        lint.standardInput = pipe
        let output = Pipe()
        lint.standardOutput = output
        try producer.run()
        try lint.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let status = lint.waitForExit()
        producer.terminate()
        _ = producer.waitForExit()
        #expect(status == 1)
        #expect(text.contains("<stdin>:1:1: error: expected a policy file of at most 1048576 bytes, found more on standard input [RP003]"), "\(text)")
    }

    @Test("argument parser usage errors exit 2, not 64")
    func usageError() throws {
        let workspace = try Workspace([:])
        let unknownFlag = try workspace.run(["lint", "--bogus"])
        #expect(unknownFlag.status == 2, "\(unknownFlag)")
        #expect(unknownFlag.stderr.contains("Unknown option '--bogus'"))
        let badFormat = try workspace.run(["lint", "--format", "xml"])
        #expect(badFormat.status == 2, "\(badFormat)")
        let noCommand = try workspace.run(["frobnicate"])
        #expect(noCommand.status == 2, "\(noCommand)")
    }

    @Test("json output lists findings with ids, severities and positions")
    func json() throws {
        let workspace = try Workspace(["problems.yaml": PolicyTexts.problems])
        let result = try workspace.run(["lint", "--format", "json", "problems.yaml"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let findings = try #require(document["findings"] as? [[String: Any]])
        let ids = findings.compactMap { $0["id"] as? String }
        #expect(ids == ["RP107", "RP111", "RP101"], "\(result)")
        #expect(findings[2]["line"] as? Int == 16)
        #expect(findings[2]["column"] as? Int == 5)
        #expect(findings[2]["severity"] as? String == "warning")
        #expect(document["warnings"] as? Int == 3)
    }

    @Test("github annotations are chosen automatically under GitHub Actions and escape their properties")
    func github() throws {
        let workspace = try Workspace(["problems.yaml": PolicyTexts.problems])
        let result = try workspace.run(["lint", "problems.yaml"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(result.stdout.contains("::warning file=problems.yaml,line=16,col=5,title=RP101::rule at line 16 can never match: rule at line 13 already matches every input it matches (move it above rule at line 13 or delete it)\n"), "\(result)")
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("::") }.count == 3)
        let explicit = try workspace.run(["lint", "--format", "human", "problems.yaml"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(!explicit.stdout.contains("::warning"))
    }

    @Test("junit output has one test case per file, failed by errors")
    func junit() throws {
        let workspace = try Workspace([
            "a.yaml": PolicyTexts.clean,
            "broken.yaml": PolicyTexts.clean.replacingOccurrences(of: "backoff:", with: "bakoff:"),
        ])
        let result = try workspace.run(["lint", "--format", "junit", "a.yaml", "broken.yaml"])
        #expect(result.status == 1)
        #expect(result.stdout.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"retry-policy\" tests=\"2\" failures=\"1\""), "\(result)")
        #expect(result.stdout.contains("<testcase classname=\"retry-policy.lint\" name=\"a.yaml\">\n    </testcase>"))
        #expect(result.stdout.contains("<failure type=\"RP010\""))
        let check = try python("import sys, xml.dom.minidom; xml.dom.minidom.parseString(sys.argv[1]); print('well-formed')", arguments: [result.stdout])
        #expect(check.output == "well-formed\n", "\(check.output)")
    }

    @Test("sarif output validates against the SARIF 2.1.0 schema (a faithful subset in the fixtures)")
    func sarif() throws {
        let workspace = try Workspace([
            "problems.yaml": PolicyTexts.problems,
            "dir with space/broken.yaml": PolicyTexts.clean.replacingOccurrences(of: "backoff:", with: "bakoff:"),
        ])
        let result = try workspace.run(["lint", "--format", "sarif", "problems.yaml", "dir with space/broken.yaml"])
        #expect(result.status == 1)
        try workspace.write("report.sarif", result.stdout)
        let schema = CLI.fixtures.appendingPathComponent("sarif-schema-2.1.0-subset.json").path
        let validation = try python("""
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            log = json.load(open(sys.argv[2]))
            jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER).validate(log)
            run = log["runs"][0]
            rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
            for result in run["results"]:
                assert rules[result["ruleIndex"]] == result["ruleId"], result
            # helpUri: an absolute https URI whose anchor exists in the
            # documentation page it names.
            docs = sys.argv[3]
            for rule in run["tool"]["driver"]["rules"]:
                uri = rule["helpUri"]
                assert uri.startswith("https://github.com/"), uri
                page, anchor = uri.split("/docs/", 1)[1].split("#")
                assert anchor == rule["id"].lower(), uri
                text = open(docs + "/" + page).read()
                assert '<a id="%s"></a>%s' % (anchor, rule["id"]) in text, uri
            print("valid", len(run["results"]), ",".join(rules))
            """, arguments: [schema, workspace.path("report.sarif"), CLI.packageRoot.appendingPathComponent("docs").path])
        #expect(validation.status == 0, "\(validation.output)")
        #expect(validation.output == "valid 4 RP010,RP101,RP107,RP111\n", "\(validation.output)")
        #expect(result.stdout.contains("\"uri\": \"dir%20with%20space/broken.yaml\""))
        #expect(result.stdout.contains("\"fullDescription\": {\n                \"text\": \"Rules are evaluated top to bottom"))
    }

    @Test("the validator really rejects a broken log, so the SARIF test can fail")
    func sarifValidatorRejects() throws {
        let schema = CLI.fixtures.appendingPathComponent("sarif-schema-2.1.0-subset.json").path
        let check = try python("""
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "RP1", "level": "fatal", "message": {"text": "m"}}]}]}
            try:
                jsonschema.validate(bad, schema)
                print("accepted")
            except jsonschema.ValidationError as error:
                print("rejected:", error.message)
            """, arguments: [schema])
        #expect(check.output.hasPrefix("rejected: 'fatal' is not one of"), "\(check.output)")
    }

    @Test("--explain prints a rule's explanation; unknown ids exit 2")
    func explain() throws {
        let result = try CLI.run(["lint", "--explain", "RP101"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("RP101 shadowed-rule (default severity: warning)\n\nA rule can never match because earlier rules cover all its inputs.\n\nRules are evaluated top to bottom"))
        let loader = try CLI.run(["lint", "--explain", "rp010"])
        #expect(loader.status == 0)
        #expect(loader.stdout.hasPrefix("RP010 unknown key"))
        let unknown = try CLI.run(["lint", "--explain", "RP999"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.hasPrefix("error: unknown rule 'RP999'; known rules: RP001"))
    }

    @Test("--explain takes back the rule names lint prints, and suggests the closest one")
    func explainByName() throws {
        let named = try CLI.run(["lint", "--explain", "retry-without-jitter"])
        #expect(named.status == 0)
        #expect(named.stdout.hasPrefix("RP107 retry-without-jitter (default severity: warning)"))
        let typo = try CLI.run(["lint", "--explain", "retry-without-jiter"])
        #expect(typo.status == 2)
        #expect(typo.stderr.hasPrefix("error: unknown rule 'retry-without-jiter'; did you mean 'retry-without-jitter'?"))
    }

    @Test("--list-rules lists every rule id")
    func listRules() throws {
        let result = try CLI.run(["lint", "--list-rules"])
        #expect(result.status == 0)
        for id in 101...116 { #expect(result.stdout.contains("RP\(id)  ")) }
    }

    @Test(".retry-policy.yaml found upward changes severities and turns rules off")
    func configuration() throws {
        let workspace = try Workspace([
            ".retry-policy.yaml": "rules:\n  RP107: error\n  RP101: off\n",
            "team/policies/problems.yaml": PolicyTexts.problems,
            // A git work tree: the root, up to which settings are searched.
            ".git/HEAD": "ref: refs/heads/main\n",
        ])
        let result = try CLI.run(["lint", "--format", "json", "policies/problems.yaml"], in: workspace.url.appendingPathComponent("team"))
        #expect(result.status == 1, "RP107 is now an error: \(result)")
        #expect(result.stdout.contains("\"id\": \"RP107\",\n      \"severity\": \"error\""))
        #expect(!result.stdout.contains("RP101"))
    }

    @Test("a broken settings file is reported with its position and exits 2")
    func badConfiguration() throws {
        let workspace = try Workspace([
            "settings.yaml": "rules:\n  RP107: loud\n  RP999: off\n",
            "clean.yaml": PolicyTexts.clean,
        ])
        let result = try workspace.run(["lint", "--config", "settings.yaml", "clean.yaml"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("settings.yaml:2:10: error: rules.RP107: expected error, warning, note or off, found the string 'loud'"), "\(result)")
        #expect(result.stderr.contains("settings.yaml:3:3: error: unknown rule 'RP999'"))
    }

    @Test("inline suppressions silence one line or the whole file; unused ones are reported (RP116)")
    func suppressions() throws {
        var text = PolicyTexts.problems
        text = text.replacingOccurrences(of: "  - status: 503\n", with: "  - status: 503   # retry-policy: disable=RP101\n")
        text = text.replacingOccurrences(of: "  jitter: none\n", with: "  # retry-policy: disable=RP105\n  jitter: none\n")
        text = "# retry-policy: disable-file=RP111\n" + text
        let workspace = try Workspace(["problems.yaml": text])
        let result = try workspace.run(["lint", "--format", "json", "problems.yaml"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let findings = try #require(document["findings"] as? [[String: Any]])
        let ids = findings.compactMap { $0["id"] as? String }
        #expect(ids == ["RP116", "RP107"], "\(result)")
        #expect((findings[0]["message"] as? String) == "suppression of RP105 silences nothing: no RP105 finding on line 11")
        #expect(findings[0]["line"] as? Int == 10)
        #expect(findings[1]["line"] as? Int == 11, "RP107 is at `jitter:`")
    }

    @Test("parity partners that differ are an error (RP115); identical ones are clean")
    func parity() throws {
        let workspace = try Workspace([
            "ios.yaml": PolicyTexts.clean + "parity: [android.yaml]\n",
            "android.yaml": PolicyTexts.stops429,
            "twin.yaml": PolicyTexts.clean + "parity: [clean-twin.yaml]\n",
            "clean-twin.yaml": PolicyTexts.cleanTwin,
        ])
        let differ = try workspace.run(["lint", "ios.yaml"])
        #expect(differ.status == 1, "\(differ)")
        #expect(differ.stdout.contains("ios.yaml:36:1: error: decides differently from android.yaml (stops-429) on 27 of 13770 inputs"), "\(differ)")
        let same = try workspace.run(["lint", "twin.yaml"])
        #expect(same.status == 0, "\(same)")
    }

    @Test("a stack file reports retry amplification: 3 x 3 x 3 = 27")
    func amplification() throws {
        let workspace = try Workspace([
            "app.yaml": PolicyTexts.clean,
            "sdk.yaml": PolicyTexts.cleanTwin,
            "gateway.yaml": PolicyTexts.clean.replacingOccurrences(of: "name: clean", with: "name: gateway"),
            "checkout.yaml": """
                version: 1
                name: checkout-path
                stack:
                  - {name: app, policy: app.yaml}
                  - {name: sdk, policy: sdk.yaml}
                  - {name: gateway, policy: gateway.yaml}
                max_amplification: 10

                """,
        ])
        let result = try workspace.run(["lint", "checkout.yaml"])
        #expect(result.stdout.contains("warning: one failing request through checkout-path can cause 3 x 3 x 3 = 27 requests (app 3, sdk 3, gateway 3), above max_amplification 10 [RP113]"), "\(result)")
    }
}
