import Foundation
import Testing

/// Text from files (test case names, file names, keys and values a
/// diagnostic quotes) reaches terminals and CI logs. Every case runs the
/// real binary on files an untrusted pull request could hold and checks
/// every output format: no raw control character, no line the GitHub
/// runner would read as a workflow command other than our own annotations.
@Suite("Text from files is printed safely", .serialized)
struct HostileTextOutputTests {
    /// A case name that sets the terminal's title, returns the cursor and
    /// forges an annotation on a line of its own, as YAML escapes.
    static let forgedYAML = #""x\e]0;owned\a\r\n::error file=x::forged \u202E##[error]y""#
    static let forged = "x\u{1B}]0;owned\u{7}\r\n::error file=x::forged \u{202E}##[error]y"
    static let forgedShown = #"x\u{1B}]0;owned\u{7}\u{D}\u{A}::error file=x::forged \u{202E}##\u{5B}error]y"#

    /// Whether `scalar` may not appear raw in any output: C0 and C1
    /// controls other than tab and our own line feeds, the line and
    /// paragraph separators, bidirectional controls and the byte order mark.
    static func isRaw(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029, 0xFEFF: true
        default: false
        }
    }

    /// One of the annotations `lint --format github` writes.
    static func isOwnAnnotation(_ line: Substring) -> Bool {
        line.wholeMatch(of: /::(error|warning|notice) file=[^:\n]*,line=[0-9]+,col=[0-9]+,title=RP[0-9]+::[^\n]*/) != nil
            && !line.contains("##[")
    }

    static func expectSafe(_ result: CLIResult, annotations: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
        for (stream, text) in [("stdout", result.stdout), ("stderr", result.stderr)] {
            #expect(!text.unicodeScalars.contains(where: isRaw), "raw control on \(stream):\n\(text.debugDescription)", sourceLocation: sourceLocation)
            #expect(!text.contains("##["), "\(stream): \(text.debugDescription)", sourceLocation: sourceLocation)
            for line in text.split(separator: "\n") where line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("::") {
                #expect(
                    annotations && stream == "stdout" && isOwnAnnotation(line), "forged workflow command on \(stream): \(line.debugDescription)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    static let hostileTests = """
        policy: clean.yaml
        cases:
          - name: \(forgedYAML)
            status: 503
            expect: {action: stop, error: "e\\r\\n::warning::w"}
          - name: "passes \\u2067"
            status: 503
            expect: {action: retry}
        sequences:
          - name: \(forgedYAML)
            responses: [503, 200]
            expect: {attempts: 1}

        """

    @Test("test: a forged case name, expected value and test file name, in every format")
    func testCommand() throws {
        let hostileFile = "t\u{1B}]0;x\u{7}\u{202E}.tests.yaml"
        let workspace = try Workspace([
            "clean.yaml": PolicyTexts.clean, "clean.tests.yaml": Self.hostileTests, hostileFile: Self.hostileTests,
            "::error file=x::y.tests.yaml": "policy: clean.yaml\ncases:\n  - {name: n, status: 503, expect: {\"bogus\\e\": 1}}\n",
        ])
        for format in ["human", "json", "junit"] {
            let result = try workspace.run(["test", "--root", workspace.url.path, ".", "--format", format])
            #expect(result.status == 1, "\(result)")
            Self.expectSafe(result)
            if format != "json" {
                #expect(result.stdout.contains(Self.forgedShown), "\(result)")
                #expect(result.stdout.contains(#"t\u{1B}]0;x\u{7}\u{202E}.tests.yaml"#), "\(result)")
            }
        }
        let human = try workspace.run(["test", "--root", workspace.url.path, "."])
        #expect(human.stdout.contains("  clean.tests.yaml:3:5: case '\(Self.forgedShown)' failed\n"), "\(human)")
        #expect(human.stdout.contains(#"      error: expected e\u{D}\u{A}::warning::w, got status_5xx"#), "\(human)")
        #expect(human.stdout.contains("ERROR :\\u{3A}error file=x::y.tests.yaml:\n"), "\(human)")

        let json = try workspace.run(["test", "--root", workspace.url.path, "clean.tests.yaml", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let failures = try #require((object["files"] as? [[String: Any]])?.first?["failures"] as? [[String: Any]])
        #expect(failures.map { $0["name"] as? String } == [Self.forged, Self.forged])
    }

    static let unknownKeyPolicy = """
        version: 1
        name: p
        attempts: 2
        "bak\\ecoff\\r\\n::error::x\\u202E": {}
        rules:
          - {status: 503, error: status_5xx, action: "re\\u2066try\\e[2J"}
        default: {error: internal_error, action: stop}

        """

    @Test("lint: file names holding '::error' or ESC, and quoted keys and values, in every format")
    func lintCommand() throws {
        let names = ["::error file=x::y.yaml", "e\u{1B}[2J\u{7}\u{202E}x.yaml", "  ::warning::z.yaml"]
        var files: [String: String] = [:]
        for name in names { files[name] = Self.unknownKeyPolicy }
        let workspace = try Workspace(files)
        for format in ["human", "json", "sarif", "github", "junit"] {
            let result = try workspace.run(["lint", "--root", workspace.url.path, ".", "--format", format])
            #expect(result.status == 1, "\(format): \(result)")
            Self.expectSafe(result, annotations: format == "github")
            if format == "github" {
                #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("::") }.count >= 6, "\(result)")
            }
        }
        let human = try workspace.run(["lint", "--root", workspace.url.path, "."])
        #expect(human.stdout.contains(":\\u{3A}error file=x::y.yaml:4:1: error: "), "\(human)")
        #expect(human.stdout.contains(#"e\u{1B}[2J\u{7}\u{202E}x.yaml:4:1: error: "#), "\(human)")
        #expect(human.stdout.contains(#"  :\u{3A}warning::z.yaml:4:1: error: "#), "\(human)")
        #expect(human.stdout.contains(#"bak\u{1B}coff\u{D}\u{A}::error::x\u{202E}"#), "\(human)")
        #expect(human.stdout.contains(#"re\u{2066}try\u{1B}[2J"#), "\(human)")

        let json = try workspace.run(["lint", "--root", workspace.url.path, ".", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((object["files"] as? [String])?.count == names.count)
        let reported = Set((object["files"] as? [String] ?? []).map { $0.hasPrefix("./") ? String($0.dropFirst(2)) : $0 })
        #expect(reported == Set(names))
    }

    @Test("decide and table: load diagnostics quoting the file are escaped on standard error")
    func loadDiagnostics() throws {
        let workspace = try Workspace(["p.yaml": Self.unknownKeyPolicy])
        for arguments in [["decide", "p.yaml", "--status", "503"], ["table", "p.yaml"], ["diff", "p.yaml", "p.yaml"]] {
            let result = try workspace.run(arguments + ["--root", workspace.url.path])
            #expect(result.status == 1, "\(result)")
            Self.expectSafe(result)
            #expect(result.stderr.contains(#"bak\u{1B}coff\u{D}\u{A}::error::x\u{202E}"#), "\(result)")
        }
    }

    @Test("the top-level error line escapes the paths and arguments it quotes")
    func errorLine() throws {
        let workspace = try Workspace([:])
        let missing = try workspace.run(["decide", "::error::x\u{1B}]0;t\u{7}\r\n##[error]y.yaml", "--status", "503", "--root", workspace.url.path])
        #expect(missing.status == 2, "\(missing)")
        Self.expectSafe(missing)
        #expect(missing.stderr.hasPrefix(#"error: :\u{3A}error::x\u{1B}]0;t\u{7}\u{D}\u{A}##\u{5B}error]y.yaml"#), "\(missing)")
        let usage = try workspace.run(["decide", "p.yaml", "--transport", "\u{1B}[2J\n::error::u", "--root", workspace.url.path])
        #expect(usage.status == 2, "\(usage)")
        Self.expectSafe(usage)
        let rule = try workspace.run(["lint", "--explain", "\u{1B}]0;t\u{7}"])
        #expect(rule.status == 2, "\(rule)")
        Self.expectSafe(rule)
    }
}
