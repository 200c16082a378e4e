import Foundation
import Testing

/// A pull request is untrusted input: nothing it holds may make the tools
/// read a file outside the root, or print one. Every case runs the real
/// binary inside a git work tree that sits next to a secret file, with a
/// secret in the environment, and checks every output format.
@Suite("Untrusted input never reads or prints outside the root")
struct UntrustedInputTests {
    static let environmentSecret = "ENVIRONMENT-MARKER-7f3a91"
    static let fileSecret = "FILE-MARKER-c0ffee42"
    static let gitSecret = "GIT-MARKER-5eed5eed"

    static let formats = ["human", "json", "sarif", "github", "junit"]

    /// `outer/secret.env` and `outer/outside.yaml` (both holding the file
    /// marker), and the checkout `outer/repo` with a `.git` folder whose
    /// config holds another marker.
    final class Checkout {
        let outer: URL
        let repo: URL

        init() throws {
            outer = FileManager.default.temporaryDirectory.appendingPathComponent("untrusted-\(UUID().uuidString)")
            repo = outer.appendingPathComponent("repo")
            try FileManager.default.createDirectory(at: repo.appendingPathComponent(".git"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: repo.appendingPathComponent("policies"), withIntermediateDirectories: true)
            try "TOKEN=\(fileSecret)\n".write(to: outer.appendingPathComponent("secret.env"), atomically: true, encoding: .utf8)
            try "version: 1\nname: \(fileSecret)\nattempts: 1\n# \(fileSecret)\n: : :\n"
                .write(to: outer.appendingPathComponent("outside.yaml"), atomically: true, encoding: .utf8)
            try "[http]\n\textraheader = AUTHORIZATION: basic \(gitSecret)\n"
                .write(to: repo.appendingPathComponent(".git/config"), atomically: true, encoding: .utf8)
            try "version: 1\nname: \(gitSecret)\n"
                .write(to: repo.appendingPathComponent(".git/config.yaml"), atomically: true, encoding: .utf8)
        }

        func write(_ path: String, _ text: String) throws {
            try text.write(to: repo.appendingPathComponent(path), atomically: true, encoding: .utf8)
        }

        func link(_ path: String, to destination: String) throws {
            try FileManager.default.createSymbolicLink(atPath: repo.appendingPathComponent(path).path, withDestinationPath: destination)
        }

        func run(_ arguments: [String]) throws -> CLIResult {
            try CLI.run(arguments, in: repo, environment: ["CI_SECRET_TOKEN": environmentSecret])
        }

        deinit { try? FileManager.default.removeItem(at: outer) }
    }

    /// A valid policy whose line 3 is `extends: TARGET` (column 10).
    static func extending(_ target: String) -> String {
        """
        version: 1
        name: pr
        extends: \(target)
        attempts: 2
        rules:
          - {status: 503, error: status_5xx, action: retry}
        default: {error: internal_error, action: stop}

        """
    }

    static func expectNoSecrets(_ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        let output = result.stdout + result.stderr
        for marker in [environmentSecret, fileSecret, gitSecret, "root:x:0:0", "CI_SECRET_TOKEN"] {
            #expect(!output.contains(marker), "output carries \(marker):\n\(result)", sourceLocation: sourceLocation)
        }
    }

    /// Every format: exit 1, no marker, and the problem located at
    /// `file:line:column` (human and GitHub say it in one piece, the others
    /// in fields).
    static func expectLocatedError(
        _ checkout: Checkout, lint arguments: [String], file: String, line: Int, column: Int, id: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for format in formats {
            let result = try checkout.run(["lint", "--format", format] + arguments)
            #expect(result.status == 1, "\(format): \(result)", sourceLocation: sourceLocation)
            expectNoSecrets(result, sourceLocation: sourceLocation)
            #expect(result.stdout.contains(id), "\(format): \(result)", sourceLocation: sourceLocation)
            switch format {
            case "human":
                #expect(result.stdout.contains("\(file):\(line):\(column): error:"), "\(result)", sourceLocation: sourceLocation)
            case "github":
                #expect(result.stdout.contains("file=\(file),line=\(line),col=\(column)"), "\(result)", sourceLocation: sourceLocation)
            default:
                #expect(result.stdout.contains(file), "\(format): \(result)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("extends: /etc/passwd is refused at the extends line, never read", arguments: [
        "/etc/passwd", "../../secret.env", "/proc/self/environ", "../../outside.yaml", "/dev/zero",
        "../.git/config", "../.git/config.yaml",
    ])
    func extendsOutsideTheRoot(target: String) throws {
        let checkout = try Checkout()
        try checkout.write("policies/pr.yaml", Self.extending(target))
        try Self.expectLocatedError(checkout, lint: ["policies"], file: "policies/pr.yaml", line: 3, column: 10, id: "RP009")
    }

    @Test("an absolute path to a file outside, spelt through the root, is refused too")
    func absolutePathOutside() throws {
        let checkout = try Checkout()
        try checkout.write("policies/pr.yaml", Self.extending(checkout.repo.path + "/../outside.yaml"))
        try Self.expectLocatedError(checkout, lint: ["policies"], file: "policies/pr.yaml", line: 3, column: 10, id: "RP009")
    }

    @Test("a committed symbolic link to a file outside is reported at the link and never opened", arguments: [
        "/etc/passwd", "../../secret.env", "../../outside.yaml", "/proc/self/environ",
    ])
    func fileLinkOutside(destination: String) throws {
        let checkout = try Checkout()
        try checkout.link("policies/x.yaml", to: destination)
        try Self.expectLocatedError(checkout, lint: ["policies"], file: "policies/x.yaml", line: 1, column: 1, id: "RP009")
    }

    @Test("a link inside the root to a file that is not a policy is not followed")
    func linkToNonPolicyInsideRoot() throws {
        let checkout = try Checkout()
        try checkout.write("credentials.json", "{\"key\": \"\(Self.fileSecret)\"}\n")
        try checkout.link("policies/x.yaml", to: "../credentials.json")
        try Self.expectLocatedError(checkout, lint: ["policies"], file: "policies/x.yaml", line: 1, column: 1, id: "RP009")
    }

    @Test("parity and stack layers that lead outside are located errors")
    func parityAndStackOutside() throws {
        let checkout = try Checkout()
        try checkout.write("policies/ios.yaml", """
            version: 1
            name: ios
            parity: [../../outside.yaml]
            attempts: 1
            default: {error: internal_error, action: stop}

            """)
        try Self.expectLocatedError(checkout, lint: ["policies/ios.yaml"], file: "policies/ios.yaml", line: 3, column: 1, id: "RP009")
        try checkout.write("policies/stack.yaml", """
            version: 1
            name: s
            stack:
              - {name: app, policy: ios.yaml}
              - {name: sdk, policy: /proc/self/environ}

            """)
        let result = try checkout.run(["lint", "policies/stack.yaml"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("policies/stack.yaml:5:"), "\(result)")
        Self.expectNoSecrets(result)
    }

    @Test("a referenced file inside the root that is not a policy is reported without quoting it")
    func referencedNonPolicyIsNotQuoted() throws {
        let checkout = try Checkout()
        try checkout.write("notes.yaml", "password: \(Self.fileSecret)\n")
        try checkout.write("broken.yaml", "[\(Self.fileSecret)\n")
        try checkout.write("policies/a.yaml", Self.extending("../notes.yaml"))
        try checkout.write("policies/b.yaml", Self.extending("../broken.yaml"))
        try checkout.write("policies/c.yaml", """
            version: 1
            name: c
            parity: [../broken.yaml]
            attempts: 1
            default: {error: internal_error, action: stop}

            """)
        for format in Self.formats {
            let result = try checkout.run(["lint", "--format", format, "policies"])
            #expect(result.status == 1, "\(result)")
            Self.expectNoSecrets(result)
        }
        let human = try checkout.run(["lint", "policies"])
        #expect(human.stdout.contains("policies/a.yaml:3:10: error: extends:"), "\(human)")
        #expect(human.stdout.contains("policies/b.yaml:3:10: error: extends:"), "\(human)")
        #expect(human.stdout.contains("policies/c.yaml:3:1: error: parity policy"), "\(human)")
    }

    @Test("a directory link to its parent is not followed: each file is linted once")
    func directoryLinkLoop() throws {
        let checkout = try Checkout()
        try checkout.write("policies/one.yaml", Self.extending("missing.yaml"))
        try checkout.link("policies/again", to: "..")
        try checkout.link("policies/self", to: ".")
        try checkout.link("policies/two.yaml", to: "one.yaml")
        let result = try checkout.run(["lint", "--format", "json", "."])
        #expect(result.status == 1, "\(result)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let files = try #require(json["files"] as? [String])
        #expect(files == ["policies/one.yaml"], "\(result)")
        let findings = try #require(json["findings"] as? [[String: Any]])
        #expect(findings.count == 1, "\(result)")
    }

    @Test("paths given on the command line must lie inside the root (exit 2, nothing read)")
    func argumentsOutside() throws {
        let checkout = try Checkout()
        for arguments in [
            ["lint", "../secret.env"], ["lint", "/etc/passwd"], ["lint", "--config", "../secret.env", "."],
            ["decide", "../outside.yaml", "--status", "503"], ["table", "/proc/self/environ"],
            ["diff", "../outside.yaml", "../outside.yaml"], ["test", "../outside.yaml"],
        ] {
            let result = try checkout.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderr.contains("outside the root") || result.stderr.contains("not under"), "\(arguments): \(result)")
            Self.expectNoSecrets(result)
        }
    }

    @Test("--root widens the root deliberately")
    func explicitRoot() throws {
        let checkout = try Checkout()
        try checkout.write("policies/pr.yaml", Self.extending("../../outside.yaml"))
        let confined = try checkout.run(["lint", "policies"])
        #expect(confined.status == 1 && confined.stdout.contains("RP009"), "\(confined)")
        let widened = try checkout.run(["lint", "--root", "..", "policies"])
        #expect(!widened.stdout.contains("RP009"), "\(widened)")
    }

    @Test("a policy test file's policy: reference is confined too")
    func testFileReferenceOutside() throws {
        let checkout = try Checkout()
        try checkout.write("policies/pr.tests.yaml", "policy: ../../outside.yaml\ncases:\n  - {name: one, status: 503, expect: {action: stop}}\n")
        let result = try checkout.run(["test", "policies"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("policies/pr.tests.yaml:1:9"), "\(result)")
        Self.expectNoSecrets(result)
    }

    @Test("a FIFO named like a policy is reported at once, never opened (nothing blocks)")
    func fifoInTree() throws {
        let checkout = try Checkout()
        #expect(mkfifo(checkout.repo.appendingPathComponent("policies/pipe.yaml").path, 0o600) == 0)
        let result = try checkout.run(["lint", "policies"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("policies/pipe.yaml:1:1: error:") && result.stdout.contains("FIFO"), "\(result)")
    }

    @Test("a FIFO named on the command line is a located error at once, for lint and decide")
    func fifoArgument() throws {
        let checkout = try Checkout()
        #expect(mkfifo(checkout.repo.appendingPathComponent("pipe.yaml").path, 0o600) == 0)
        let lint = try checkout.run(["lint", "pipe.yaml"])
        #expect(lint.status == 1 && lint.stdout.contains("pipe.yaml:1:1: error: expected a readable policy file at 'pipe.yaml', found a FIFO [RP008]"), "\(lint)")
        let decide = try checkout.run(["decide", "pipe.yaml", "--status", "503"])
        #expect(decide.status == 2 && decide.stderr.contains("pipe.yaml:1:1: error:"), "\(decide)")
    }

    @Test("quoted source lines are bounded and control characters are not echoed raw")
    func boundedExcerpts() throws {
        let checkout = try Checkout()
        let long = String(repeating: "x", count: 5_000)
        try checkout.write("policies/long.yaml", "version: 1\nname: long\nattempts: 2 # \(long)\nbogus: \u{1B}[31mred \(long)\n")
        let result = try checkout.run(["lint", "policies"])
        #expect(result.status == 1, "\(result)")
        #expect(!result.stdout.contains("\u{1B}"), "\(result)")
        for line in result.stdout.split(separator: "\n") {
            #expect(line.count < 400, "an output line of \(line.count) characters")
        }
    }
}
