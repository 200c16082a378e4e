import Foundation
import Testing

/// A mistyped command, file or platform is refused with what was probably
/// meant; help never breaks a quoted argument or an example.
@Suite("suggestions and help")
struct CommandSuggestionTests {
    static let tmdb = try! String(contentsOf: CLI.packageRoot.appendingPathComponent("policies/tmdb.yaml"), encoding: .utf8)

    @Test("a mistyped subcommand gets a did-you-mean and exit 2; an unknown one the list of commands")
    func subcommand() throws {
        let typo = try CLI.run(["lnt", "policies"], in: CLI.packageRoot)
        #expect(typo.status == 2, "\(typo)")
        #expect(typo.stderr.hasPrefix("error: unknown command 'lnt'; did you mean 'lint'?\n"), "\(typo)")
        #expect(typo.stdout.isEmpty)
        let transposed = try CLI.run(["deicde"])
        #expect(transposed.stderr.hasPrefix("error: unknown command 'deicde'; did you mean 'decide'?"), "\(transposed)")
        let unknown = try CLI.run(["frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("error: unknown command 'frobnicate'; the commands are lint, test, decide,"), "\(unknown)")
        // Real subcommands, help and options still parse as before.
        #expect(try CLI.run(["help", "lint"]).status == 0)
        #expect(try CLI.run(["--version"]).status == 0)
        #expect(try CLI.run(["lint", "policies"], in: CLI.packageRoot).status == 0)
    }

    @Test("a missing file names the sibling it probably meant, for lint and the commands that load one policy")
    func missingFile() throws {
        let workspace = try Workspace(["policies/tmdb.yaml": Self.tmdb, "policies/.tmbd.yaml": Self.tmdb])
        let lint = try workspace.run(["lint", "policies/tmbd.yaml"])
        #expect(lint.status == 2, "\(lint)")
        #expect(lint.stderr == "error: policies/tmbd.yaml: no such file or directory; did you mean policies/tmdb.yaml?\n", "\(lint)")
        let decide = try workspace.run(["decide", "policies/tmbd.yaml", "--status", "503"])
        #expect(decide.status == 2)
        #expect(decide.stderr == "error: policies/tmbd.yaml: no such file; did you mean policies/tmdb.yaml?\n", "\(decide)")
        let table = try workspace.run(["table", "policies/TMDB.yaml"])
        #expect(table.stderr.contains("did you mean policies/tmdb.yaml?"), "\(table)")
        // Nothing close (a dotfile is never offered), or no such directory: no guess.
        let far = try workspace.run(["lint", "policies/orders.yaml"])
        #expect(far.stderr == "error: policies/orders.yaml: no such file or directory\n", "\(far)")
        let noDirectory = try workspace.run(["lint", "polcies/tmdb.yaml"])
        #expect(noDirectory.stderr == "error: polcies/tmdb.yaml: no such file or directory\n", "\(noDirectory)")
    }

    @Test("table refuses a platform it has no names for, with the known ones and a did-you-mean")
    func tablePlatforms() throws {
        let web = Self.tmdb.replacingOccurrences(of: "client_error: {}", with: "client_error: {web: ClientError}")
        let workspace = try Workspace(["tmdb.yaml": Self.tmdb, "web.yaml": web])
        let windows = try workspace.run(["table", "tmdb.yaml", "--platform", "windows"])
        #expect(windows.status == 2, "\(windows)")
        #expect(windows.stdout.isEmpty)
        #expect(windows.stderr == "error: --platform: unknown platform 'windows'; known platforms: android, ios\n", "\(windows)")
        let typo = try workspace.run(["table", "tmdb.yaml", "--platform", "ios", "--platform", "andriod"])
        #expect(typo.stderr.contains("unknown platform 'andriod'; known platforms: android, ios; did you mean 'android'?"), "\(typo)")
        #expect(try workspace.run(["table", "tmdb.yaml", "--platform", "ios"]).status == 0)
        // A platform the policy's errors: name is known too.
        let own = try workspace.run(["table", "web.yaml", "--platform", "web"])
        #expect(own.status == 0, "\(own)")
        #expect(own.stdout.contains("`ClientError`"), "\(own)")
        let other = try workspace.run(["table", "web.yaml", "--platform", "windows"])
        #expect(other.stderr == "error: --platform: unknown platform 'windows'; known platforms: android, ios, web\n", "\(other)")
        // The help says what the table shows by default, and which names --platform takes.
        let help = try CLI.run(["table", "--help"], environment: ["COLUMNS": "200"])
        #expect(!help.stdout.contains("else ios and android"), "\(help.stdout)")
        #expect(help.stdout.contains("ios, android, or one the policy's errors: name"), "\(help.stdout)")
    }

    /// The quoted arguments (`'...'` holding a space) of a help text.
    static func quoted(in text: String) -> [String] {
        var result: [String] = []
        for line in text.split(separator: "\n") {
            var rest = line[...]
            while let open = rest.firstIndex(of: "'") {
                let before = open == line.startIndex ? " " : line[line.index(before: open)]
                let after = rest[rest.index(after: open)...]
                guard let close = after.firstIndex(of: "'") else { break }
                let span = String(line[open...close])
                if before == " " && span.contains(" ") { result.append(span) }
                rest = after[after.index(after: close)...]
            }
        }
        return result
    }

    @Test("help wraps to the terminal without breaking a quoted argument or an example line", arguments: [
        "decide", "replay", "lint", "table", "simulate", "diff",
    ])
    func helpWrapping(command: String) throws {
        let wide = try CLI.run([command, "--help"], environment: ["COLUMNS": "10000"]).stdout
        let examples = wide.split(separator: "\n").filter { $0.hasPrefix("  retry-policy ") }
        let quoted = Self.quoted(in: wide)
        if command == "decide" {
            #expect(quoted.contains("'Mon, 23 Nov 2026 12:00:20 GMT'"), "\(quoted)")
            #expect(examples.count >= 4)
        }
        for width in [60, 80, 100] {
            let help = try CLI.run([command, "--help"], environment: ["COLUMNS": "\(width)"])
            #expect(help.status == 0)
            let lines = help.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            for example in examples {
                #expect(lines.contains(example), "\(command) at \(width) columns broke the example \(example)")
            }
            for span in quoted {
                #expect(lines.contains { $0.contains(span) }, "\(command) at \(width) columns broke \(span)")
            }
            // Prose still wraps: only an example or one unbreakable word is wider.
            for line in lines where line.count >= width && !examples.contains(line) {
                #expect(!line.dropFirst(line.prefix { $0 == " " }.count).contains(" ") || quoted.contains { line.contains($0) }
                    || line.hasPrefix("    "), "\(command) at \(width) columns: \(line)")
            }
        }
    }
}
