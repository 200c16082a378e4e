import Foundation
import Testing

/// Every file the tool writes (`import --output`, `init`, `simulate --svg`,
/// `replay --svg`) lands inside the root, atomically, never through a
/// symbolic link and never over an existing file without `--force`. Each
/// case runs the real binary in a git work tree that sits next to a file
/// the tree must not be able to change.
@Suite("Writes stay inside the root and never follow a link")
struct ConfinedWriteTests {
    static let outsideText = "export PATH=/usr/bin # OUTSIDE-ORIGINAL\n"

    /// `outer/outside.sh` (a file a shell sources), and the checkout
    /// `outer/repo` (with `.git`, so it is the default root) holding a
    /// policy, a gRPC service config and a recording.
    final class Tree {
        let outer: URL
        let repo: URL

        init() throws {
            outer = FileManager.default.temporaryDirectory.appendingPathComponent("confined-\(UUID().uuidString)")
            repo = outer.appendingPathComponent("repo")
            try FileManager.default.createDirectory(at: repo.appendingPathComponent(".git/hooks"), withIntermediateDirectories: true)
            try outsideText.write(to: outer.appendingPathComponent("outside.sh"), atomically: true, encoding: .utf8)
            try write("policy.yaml", PolicyTexts.clean)
            try write("channel.json", ConfinedWriteTests.twoServices)
            try write("traffic.jsonl", ReplayCommandTests.jsonl(count: 20))
        }

        func write(_ path: String, _ text: String) throws {
            let url = repo.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }

        func link(_ path: String, to destination: String) throws {
            try FileManager.default.createSymbolicLink(atPath: repo.appendingPathComponent(path).path, withDestinationPath: destination)
        }

        func text(_ path: String) -> String? {
            try? String(contentsOf: repo.appendingPathComponent(path), encoding: .utf8)
        }

        func exists(_ path: String) -> Bool {
            var status = stat()
            return lstat(repo.appendingPathComponent(path).path, &status) == 0
        }

        func isLink(_ path: String) -> Bool {
            var status = stat()
            return lstat(repo.appendingPathComponent(path).path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
        }

        var outside: String { (try? String(contentsOf: outer.appendingPathComponent("outside.sh"), encoding: .utf8)) ?? "" }

        /// Everything in `outer` but the checkout: nothing may appear there.
        var outerNames: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: outer.path)) ?? []).sorted()
        }

        /// Names of `directory` (inside the checkout), temporary files
        /// included.
        func names(in directory: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: repo.appendingPathComponent(directory).path)) ?? []).sorted()
        }

        func run(_ arguments: [String]) throws -> CLIResult {
            try CLI.run(arguments, in: repo)
        }

        deinit { try? FileManager.default.removeItem(at: outer) }
    }

    static let twoServices = """
        {"methodConfig": [
          {"name": [{"service": "shop.Cart"}], "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s",
            "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}},
          {"name": [{"service": "shop.Orders"}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "0.1s",
            "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}
        """

    /// A gRPC service config with one method config per name given.
    static func services(_ names: [[String: String]]) throws -> String {
        let configs = names.map { name -> [String: Any] in
            ["name": [name], "retryPolicy": [
                "maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE"],
            ] as [String: Any]]
        }
        let data = try JSONSerialization.data(withJSONObject: ["methodConfig": configs])
        return String(decoding: data, as: UTF8.self)
    }

    static let importOne = ["import", "channel.json", "--from", "grpc", "--select", "shop.Cart"]

    static func expectUntouched(_ tree: Tree, _ result: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(tree.outside == outsideText, "the file outside the root changed:\n\(result)", sourceLocation: sourceLocation)
        #expect(tree.outerNames == ["outside.sh", "repo"], "a file appeared outside the root:\n\(result)", sourceLocation: sourceLocation)
    }

    // MARK: Links

    @Test("a symbolic link at the output name, leading out of the root, is refused, with or without --force")
    func linkOutOfRoot() throws {
        let tree = try Tree()
        try tree.link("mesh.yaml", to: "../outside.sh")
        for force in [false, true] {
            let result = try tree.run(Self.importOne + ["--output", "mesh.yaml"] + (force ? ["--force"] : []))
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains("mesh.yaml: is a symbolic link"), "\(result)")
            Self.expectUntouched(tree, result)
            #expect(tree.isLink("mesh.yaml"))
            #expect(tree.names(in: ".") == [".git", "channel.json", "mesh.yaml", "policy.yaml", "traffic.jsonl"], "a temporary file was left")
        }
        // An absolute link, and one whose destination does not exist yet.
        try tree.link("abs.yaml", to: tree.outer.appendingPathComponent("outside.sh").path)
        try tree.link("dangling.yaml", to: "../created-by-the-tool.sh")
        for name in ["abs.yaml", "dangling.yaml"] {
            let result = try tree.run(Self.importOne + ["--output", name, "--force"])
            #expect(result.status == 2 && result.stderr.contains("is a symbolic link"), "\(result)")
            Self.expectUntouched(tree, result)
        }
    }

    @Test("a symbolic link at the output name leading inside the root is refused too; its target is untouched")
    func linkInsideRoot() throws {
        let tree = try Tree()
        try tree.write("kept.yaml", "# mine\n")
        try tree.link("mesh.yaml", to: "kept.yaml")
        let result = try tree.run(Self.importOne + ["--output", "mesh.yaml", "--force"])
        #expect(result.status == 2 && result.stderr.contains("mesh.yaml: is a symbolic link"), "\(result)")
        #expect(tree.text("kept.yaml") == "# mine\n")
        #expect(tree.isLink("mesh.yaml"))
    }

    @Test("a directory link on the output path is refused, leading out of the root or not")
    func directoryLinkInPath() throws {
        let tree = try Tree()
        try tree.link("out", to: "..")
        try FileManager.default.createDirectory(at: tree.repo.appendingPathComponent("real"), withIntermediateDirectories: true)
        try tree.link("alias", to: "real")
        for output in ["out/mesh.yaml", "out/", "alias/mesh.yaml", "alias/"] {
            let result = try tree.run(Self.importOne + ["--output", output])
            #expect(result.status == 2, "\(output): \(result)")
            #expect(result.stderr.contains("passes through the symbolic link"), "\(output): \(result)")
            Self.expectUntouched(tree, result)
            #expect(tree.names(in: "real").isEmpty, "\(output) wrote through the link")
        }
    }

    // MARK: Outside the root

    @Test("--output outside the root (absolute, or through ..) is refused and nothing is created")
    func outsideRoot() throws {
        let tree = try Tree()
        let absolute = tree.outer.appendingPathComponent("abs.yaml").path
        for output in [absolute, "../x.yaml", "sub/../../x.yaml", "/tmp/../" + absolute, "../"] {
            let result = try tree.run(Self.importOne + ["--output", output, "--force"])
            #expect(result.status == 2, "\(output): \(result)")
            #expect(result.stderr.contains("is outside the root"), "\(output): \(result)")
            Self.expectUntouched(tree, result)
        }
        // `..` that stays inside the root is an ordinary path.
        let inside = try tree.run(Self.importOne + ["--output", "sub/../inside.yaml"])
        #expect(inside.status == 0, "\(inside)")
        #expect(tree.text("inside.yaml")?.contains("name: shop.Cart") == true)
    }

    @Test("--root moves the confinement: a path outside the working tree is written only when the root holds it")
    func explicitRoot() throws {
        let tree = try Tree()
        let target = tree.outer.appendingPathComponent("outside.sh").path
        let refused = try tree.run(Self.importOne + ["--output", target, "--force", "--root", "."])
        #expect(refused.status == 2 && refused.stderr.contains("outside the root"), "\(refused)")
        Self.expectUntouched(tree, refused)
    }

    @Test("nothing is written into .git, whatever the case of its name")
    func gitDirectory() throws {
        let tree = try Tree()
        for output in [".git/hooks/pre-commit", ".GIT/config", "sub/.git/x.yaml"] {
            let result = try tree.run(Self.importOne + ["--output", output, "--force"])
            #expect(result.status == 2 && result.stderr.contains("inside a .git folder"), "\(output): \(result)")
        }
        #expect(tree.names(in: ".git/hooks").isEmpty)
        #expect(!tree.exists("sub"))
    }

    // MARK: Existing files

    @Test("an existing file is kept without --force; with it, replaced by a rename keeping its permissions")
    func existingFile() throws {
        let tree = try Tree()
        try tree.write("mesh.yaml", "# hand-written\n")
        let path = tree.repo.appendingPathComponent("mesh.yaml").path
        chmod(path, 0o600)
        var before = stat()
        lstat(path, &before)
        let refused = try tree.run(Self.importOne + ["--output", "mesh.yaml"])
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("mesh.yaml: exists; pass --force to replace it"), "\(refused)")
        #expect(tree.text("mesh.yaml") == "# hand-written\n")

        let forced = try tree.run(Self.importOne + ["--output", "mesh.yaml", "--force"])
        #expect(forced.status == 0, "\(forced)")
        #expect(tree.text("mesh.yaml")?.contains("name: shop.Cart") == true)
        var after = stat()
        lstat(path, &after)
        // A new inode: the old file was never opened for writing, so a
        // reader saw the whole old text or the whole new one.
        #expect(after.st_ino != before.st_ino)
        #expect(after.st_mode & 0o777 == 0o600)
        #expect(tree.names(in: ".").filter { $0.hasPrefix(".retry-policy-") }.isEmpty, "a temporary file was left")
    }

    @Test("--force over a hard link to a file outside the root replaces the name, never the shared file")
    func hardLinkReplacedNotWritten() throws {
        let tree = try Tree()
        #expect(link(tree.outer.appendingPathComponent("outside.sh").path, tree.repo.appendingPathComponent("mesh.yaml").path) == 0)
        let forced = try tree.run(Self.importOne + ["--output", "mesh.yaml", "--force"])
        #expect(forced.status == 0, "\(forced)")
        #expect(tree.text("mesh.yaml")?.contains("name: shop.Cart") == true)
        Self.expectUntouched(tree, forced)
    }

    @Test("a directory or a FIFO at the output name is refused, even with --force")
    func directoryAtName() throws {
        let tree = try Tree()
        try FileManager.default.createDirectory(at: tree.repo.appendingPathComponent("taken.svg"), withIntermediateDirectories: true)
        let directory = try tree.run(["simulate", "policy.yaml", "--clients", "10", "--svg", "taken.svg", "--force"])
        #expect(directory.status == 2 && directory.stderr.contains("taken.svg: is a directory"), "\(directory)")
        #expect(tree.names(in: "taken.svg").isEmpty)
        #expect(mkfifo(tree.repo.appendingPathComponent("pipe.svg").path, 0o600) == 0)
        // Opening a FIFO for writing would block until a reader comes: it
        // is never opened.
        let fifo = try tree.run(["simulate", "policy.yaml", "--clients", "10", "--svg", "pipe.svg", "--force"])
        #expect(fifo.status == 2 && fifo.stderr.contains("pipe.svg: is a FIFO"), "\(fifo)")
    }

    @Test("missing directories on the way are created inside the root, one at a time")
    func missingDirectories() throws {
        let tree = try Tree()
        let file = try tree.run(Self.importOne + ["--output", "new/deeper/mesh.yaml"])
        #expect(file.status == 0, "\(file)")
        #expect(tree.text("new/deeper/mesh.yaml")?.contains("name: shop.Cart") == true)
        let every = try tree.run(["import", "channel.json", "--from", "grpc", "--output", "imported/all/"])
        #expect(every.status == 0, "\(every)")
        #expect(tree.names(in: "imported/all") == ["shop.Cart.yaml", "shop.Orders.yaml"])
        #expect(every.stderr.contains("wrote imported/all/shop.Cart.yaml\nwrote imported/all/shop.Orders.yaml\n"), "\(every)")
    }

    @Test("--output DIR checks every file before writing the first: one existing file leaves the directory as it was")
    func directoryAllOrNothing() throws {
        let tree = try Tree()
        try tree.write("imported/shop.Orders.yaml", "# hand-written\n")
        let refused = try tree.run(["import", "channel.json", "--from", "grpc", "--output", "imported"])
        #expect(refused.status == 2 && refused.stderr.contains("imported/shop.Orders.yaml: exists; pass --force to replace it"), "\(refused)")
        #expect(tree.names(in: "imported") == ["shop.Orders.yaml"])
        #expect(tree.text("imported/shop.Orders.yaml") == "# hand-written\n")
        try tree.link("imported/shop.Cart.yaml", to: "../../outside.sh")
        let linked = try tree.run(["import", "channel.json", "--from", "grpc", "--output", "imported", "--force"])
        #expect(linked.status == 2 && linked.stderr.contains("shop.Cart.yaml: is a symbolic link"), "\(linked)")
        #expect(tree.text("imported/shop.Orders.yaml") == "# hand-written\n")
        Self.expectUntouched(tree, linked)
    }

    // MARK: Names

    @Test("candidates whose names make one file are an error naming both; nothing is written",
          arguments: [
            [["service": "a", "method": "b"], ["service": "a-b"]],
            [["service": String(repeating: "s", count: 128) + "one"], ["service": String(repeating: "s", count: 128) + "two"]],
            [["service": "Shop.Cart"], ["service": "shop.cart"]],
          ])
    func collidingNames(_ names: [[String: String]]) throws {
        let tree = try Tree()
        try tree.write("colliding.json", try Self.services(names))
        let result = try tree.run(["import", "colliding.json", "--from", "grpc", "--output", "imported/"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("[RPI07]"), "\(result)")
        for name in names {
            let shown = name["method"].map { "\(name["service"]!)/\($0)" } ?? name["service"]!
            #expect(result.stderr.contains("\"\(shown)\""), "\(shown) not named: \(result)")
        }
        #expect(!tree.exists("imported"), "something was written")
    }

    @Test("a name of nothing but a bidi control does not become default: it gets its own name and a warning")
    func bidiOnlyName() throws {
        let tree = try Tree()
        try tree.write("config", """
            [default]
            retry_mode = standard
            max_attempts = 4

            [profile \u{202E}]
            retry_mode = standard
            max_attempts = 7

            """)
        let result = try tree.run(["import", "config", "--from", "aws-config", "--output", "profiles/"])
        #expect(result.status == 0, "\(result)")
        #expect(tree.names(in: "profiles") == ["default.yaml", "profile-2.yaml"])
        #expect(tree.text("profiles/default.yaml")?.contains("attempts: 4") == true)
        #expect(tree.text("profiles/profile-2.yaml")?.contains("attempts: 7") == true)
        #expect(result.stderr.contains("config:5:1: warning: the name \"\\u{202E}\"") || result.stderr.contains("imported as profile-2"), "\(result)")
        #expect(!result.stderr.unicodeScalars.contains("\u{202E}"), "a raw bidi control was printed: \(result)")
        let lint = try tree.run(["lint", "profiles/default.yaml", "profiles/profile-2.yaml"])
        #expect(lint.stdout.contains("0 errors") && lint.stdout.contains("in 2 files"), "\(lint)")
    }

    @Test("import --list of names holding ESC, CR, LF and ::error prints no raw control character")
    func listEscapesNames() throws {
        let tree = try Tree()
        let hostile = [
            ["service": "\u{1B}]0;owned\u{07}\u{1B}[2J"],
            ["service": "cart\r::error file=x.swift::forged"],
            ["service": "orders\n::add-mask::x"],
            ["service": "::error::first"],
            ["service": "##[error]old form"],
        ]
        try tree.write("hostile.json", try Self.services(hostile))
        let result = try tree.run(["import", "hostile.json", "--from", "grpc", "--list"])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == hostile.count, "one line per candidate:\n\(result.stdout)")
        for scalar in (result.stdout + result.stderr).unicodeScalars {
            #expect(scalar == "\n" || scalar == "\t" || !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)),
                    "raw U+\(String(scalar.value, radix: 16)) printed")
        }
        for line in lines {
            #expect(!line.hasPrefix("::") && !line.contains("##["), "a workflow command could be forged: \(line)")
        }
        // The names are still recognisable.
        #expect(result.stdout.contains("cart\\u{D}:"), "\(result.stdout)")
        #expect(result.stdout.contains("\\u{1B}]0;owned"), "\(result.stdout)")
    }

    // MARK: The other writers

    @Test("init into a directory holding a link writes neither file; outside the root is refused")
    func initThroughLink() throws {
        let tree = try Tree()
        try FileManager.default.createDirectory(at: tree.repo.appendingPathComponent("policies"), withIntermediateDirectories: true)
        try tree.link("policies/svc.tests.yaml", to: "../../outside.sh")
        for force in [false, true] {
            let result = try tree.run(["init", "svc", "--directory", "policies"] + (force ? ["--force"] : []))
            #expect(result.status == 2 && result.stderr.contains("policies/svc.tests.yaml: is a symbolic link"), "\(result)")
            #expect(!tree.exists("policies/svc.yaml"), "the first file was written before the second was refused")
            Self.expectUntouched(tree, result)
        }
        try tree.link("linked", to: "..")
        let linkedDirectory = try tree.run(["init", "svc", "--directory", "linked"])
        #expect(linkedDirectory.status == 2 && linkedDirectory.stderr.contains("passes through the symbolic link"), "\(linkedDirectory)")
        let outside = try tree.run(["init", "svc", "--directory", ".."])
        #expect(outside.status == 2 && outside.stderr.contains("is outside the root"), "\(outside)")
        Self.expectUntouched(tree, outside)
        let fresh = try tree.run(["init", "svc", "--directory", "more/policies"])
        #expect(fresh.status == 0 && tree.text("more/policies/svc.yaml")?.contains("name: svc") == true, "\(fresh)")
    }

    @Test("simulate --svg and replay --svg through a link are refused; the link's target is untouched")
    func chartsThroughLink() throws {
        let tree = try Tree()
        try tree.link("storm.svg", to: "../outside.sh")
        let simulate = try tree.run(["simulate", "policy.yaml", "--clients", "10", "--svg", "storm.svg", "--force"])
        #expect(simulate.status == 2 && simulate.stderr.contains("storm.svg: is a symbolic link"), "\(simulate)")
        Self.expectUntouched(tree, simulate)
        let replay = try tree.run(["replay", "--policy", "policy.yaml", "traffic.jsonl", "--svg", "storm.svg", "--force"])
        #expect(replay.status == 2 && replay.stderr.contains("storm.svg: is a symbolic link"), "\(replay)")
        Self.expectUntouched(tree, replay)
        try tree.link("charts", to: "..")
        let throughDirectory = try tree.run(["simulate", "policy.yaml", "--clients", "10", "--svg", "charts/storm.svg"])
        #expect(throughDirectory.status == 2 && throughDirectory.stderr.contains("passes through the symbolic link"), "\(throughDirectory)")
        Self.expectUntouched(tree, throughDirectory)
        // An ordinary chart is written, and replaced only with --force.
        let written = try tree.run(["simulate", "policy.yaml", "--clients", "10", "--svg", "chart.svg"])
        #expect(written.status == 0 && tree.text("chart.svg")?.hasPrefix("<svg") == true, "\(written)")
        let again = try tree.run(["replay", "--policy", "policy.yaml", "traffic.jsonl", "--svg", "chart.svg"])
        #expect(again.status == 2 && again.stderr.contains("chart.svg: exists; pass --force to replace it"), "\(again)")
        let replaced = try tree.run(["replay", "--policy", "policy.yaml", "traffic.jsonl", "--svg", "chart.svg", "--force"])
        #expect(replaced.status == 0, "\(replaced)")
    }
}
