import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// A temporary directory `outer` with a root folder `outer/root` inside.
final class RootSandbox {
    let outer: String
    let root: String

    init() throws {
        outer = FileManager.default.temporaryDirectory.appendingPathComponent("policy-root-\(UUID().uuidString)").path
        root = outer + "/root"
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
    }

    func write(_ relative: String, _ text: String) throws {
        let path = outer + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    func link(_ relative: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: outer + "/" + relative, withDestinationPath: destination)
    }

    func policyRoot() throws -> PolicyRoot { try PolicyRoot(directory: root) }

    deinit { try? FileManager.default.removeItem(atPath: outer) }
}

@Suite("PolicyRoot: nothing outside the root is read")
struct PolicyRootTests {
    static let policy = "version: 1\nname: p\nattempts: 1\ndefault: {error: internal_error, action: stop}\n"

    @Test("paths inside resolve, through relative and absolute links that stay inside")
    func inside() throws {
        let sandbox = try RootSandbox()
        try sandbox.write("root/sub/a.yaml", Self.policy)
        try sandbox.link("root/b.yaml", to: "sub/a.yaml")
        try sandbox.link("root/c.yaml", to: sandbox.root + "/sub/../sub/a.yaml")
        let root = try sandbox.policyRoot()
        for path in ["sub/a.yaml", "b.yaml", "c.yaml", "sub/../b.yaml", "./sub/./a.yaml"] {
            let located = try root.locate(sandbox.root + "/" + path).get()
            #expect(located.canonicalPath == root.path + "/sub/a.yaml", "\(path)")
            #expect(located.kind == .regular)
        }
    }

    @Test("'..', absolute paths and links that lead out are refused", arguments: [
        "../secret.yaml", "sub/../../secret.yaml", "out.yaml", "outabs.yaml", "sub/hop.yaml", "/etc/passwd",
    ])
    func outside(path: String) throws {
        let sandbox = try RootSandbox()
        try sandbox.write("secret.yaml", "secret: 1\n")
        try sandbox.link("root/out.yaml", to: "../secret.yaml")
        try sandbox.link("root/outabs.yaml", to: sandbox.outer + "/secret.yaml")
        try sandbox.link("root/sub/hop.yaml", to: "../out.yaml")
        let root = try sandbox.policyRoot()
        let full = path.hasPrefix("/") ? path : sandbox.root + "/" + path
        #expect(throws: PolicyRoot.Denial.self) { try root.locate(full).get() }
        #expect((try? root.locate(full).get())?.kind == nil)
        if case .failure(let denial) = root.locate(full) { #expect(denial.kind == .outsideRoot, "\(denial)") }
    }

    @Test("link loops end with a denial, not a hang")
    func loops() throws {
        let sandbox = try RootSandbox()
        try sandbox.link("root/a.yaml", to: "b.yaml")
        try sandbox.link("root/b.yaml", to: "a.yaml")
        try sandbox.link("root/self.yaml", to: "self.yaml")
        let root = try sandbox.policyRoot()
        for name in ["a.yaml", "self.yaml"] {
            guard case .failure(let denial) = root.locate(sandbox.root + "/" + name) else {
                Issue.record("\(name) resolved")
                continue
            }
            #expect(denial.kind == .linkLoop)
        }
    }

    @Test(".git folders and special file systems are never read")
    func gitAndSpecial() throws {
        let sandbox = try RootSandbox()
        try sandbox.write("root/.git/config.yaml", "token: 1\n")
        let root = try sandbox.policyRoot()
        guard case .failure(let git) = root.locate(sandbox.root + "/.git/config.yaml") else {
            Issue.record("read inside .git")
            return
        }
        #expect(git.kind == .gitDirectory)
        let whole = PolicyRoot.wholeFileSystem()
        for path in ["/proc/self/environ", "/dev/zero", "/sys/kernel"] {
            guard case .failure(let denial) = whole.locate(path) else {
                Issue.record("\(path) resolved")
                continue
            }
            #expect(denial.kind == .specialFileSystem, "\(path)")
        }
    }

    @Test("the loader reports RP009 at the extends line and opens nothing outside")
    func loaderRefusesOutside() throws {
        let sandbox = try RootSandbox()
        try sandbox.write("outside.yaml", Self.policy)
        try sandbox.write("root/p.yaml", "version: 1\nname: q\nextends: ../outside.yaml\n")
        let loader = PolicyLoader(root: try sandbox.policyRoot())
        let path = sandbox.root + "/p.yaml"
        #expect(throws: PolicyLoadError.self) { try loader.loadPolicy(atPath: path) }
        do {
            _ = try loader.loadPolicy(atPath: path)
        } catch {
            #expect(error.diagnostics.count == 1)
            #expect(error.diagnostics.first?.id == "RP009")
            #expect(error.diagnostics.first?.location == SourceLocation(file: path, line: 3, column: 10))
        }
        // Widened, the same file loads.
        let widened = PolicyLoader(root: try PolicyRoot(directory: sandbox.outer))
        #expect(try widened.loadPolicy(atPath: path).name == "q")
    }

    @Test("a FIFO, a directory and a device are refused at once, never opened (nothing blocks)")
    func specialFiles() throws {
        let sandbox = try RootSandbox()
        #expect(mkfifo(sandbox.root + "/pipe.yaml", 0o600) == 0)
        let loader = PolicyLoader(root: try sandbox.policyRoot())
        for (path, found) in [(sandbox.root + "/pipe.yaml", "a FIFO"), (sandbox.root + "/sub", "a directory")] {
            do {
                _ = try loader.loadDocument(atPath: path)
                Issue.record("\(path) loaded")
            } catch {
                #expect(error.diagnostics.first?.message.contains(found) == true, "\(error)")
                #expect(error.diagnostics.first?.id == "RP008")
            }
        }
        do {
            _ = try PolicyLoader().loadDocument(atPath: "/dev/zero")
            Issue.record("/dev/zero loaded")
        } catch {
            #expect(error.diagnostics.first?.id == "RP009", "\(error)")
        }
    }

    @Test("the git work tree enclosing a directory is the default root")
    func enclosingWorkTree() throws {
        let sandbox = try RootSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.outer + "/.git", withIntermediateDirectories: true)
        let found = try PolicyRoot.enclosing(sandbox.root + "/sub")
        #expect(found.path == (try PolicyRoot(directory: sandbox.outer)).path)
    }
}
