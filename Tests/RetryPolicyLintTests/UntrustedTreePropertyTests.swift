import Foundation
import PropertyBased
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML
import Testing

/// The real file system, with every path it is asked about written down.
final class RecordingFileSystem: PolicyFileSystem {
    let base = SystemFileSystem()
    let workingDirectory: String
    private let touched = LockedValue<[String]>([])

    init(workingDirectory: String) {
        self.workingDirectory = workingDirectory
    }

    var paths: [String] { touched.withLock { $0 } }

    func forget() { touched.withLock { $0.removeAll() } }

    private func note(_ path: String) { touched.withLock { $0.append(path) } }

    var currentDirectory: String { workingDirectory }

    func kind(ofEntryAt path: String) -> FileKind? {
        note(path)
        return base.kind(ofEntryAt: path)
    }

    func destination(ofLinkAt path: String) -> String? {
        note(path)
        return base.destination(ofLinkAt: path)
    }

    func names(inDirectoryAt path: String) -> [String]? {
        note(path)
        return base.names(inDirectoryAt: path)
    }

    func contents(ofFileAt path: String, limit: Int) -> Result<[UInt8], FileReadFailure> {
        note(path)
        return base.contents(ofFileAt: path, limit: limit)
    }
}

@Suite("Linting random trees never touches a path outside the root")
struct UntrustedTreePropertyTests {
    static let secret = "OUTSIDE-MARKER-d00d"

    /// A random tree under `outer/root`, with files and links inside and
    /// outside, references in every direction, and link loops.
    static func makeTree(seed: Int, outer: String) throws {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
        func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }
        let manager = FileManager.default
        let directories = ["root", "root/a", "root/a/b", "root/c", "outside", "outside/d"]
        for directory in directories { try manager.createDirectory(atPath: outer + "/" + directory, withIntermediateDirectories: true) }
        try "TOKEN=\(secret)\n".write(toFile: outer + "/outside/secret.env", atomically: true, encoding: .utf8)
        try "version: 1\nname: \(secret)\n: [\n".write(toFile: outer + "/outside/d/evil.yaml", atomically: true, encoding: .utf8)

        let references = [
            "../outside/secret.env", "../../outside/d/evil.yaml", "/etc/passwd", "/proc/self/environ", "x0.yaml",
            "../x1.yaml", "b/x2.yaml", "missing.yaml", "../../../outside/d/evil.yaml", "../a", outer + "/outside/d/evil.yaml",
            "l0.yaml", "../l1.yaml",
        ]
        let count = Int.random(in: 3...12, using: &random)
        for index in 0..<count {
            let directory = pick(["root", "root/a", "root/a/b", "root/c"])
            let name = "x\(index).yaml"
            var text = "version: 1\nname: n\(index)\nattempts: \(Int.random(in: 1...3, using: &random))\n"
            switch Int.random(in: 0..<5, using: &random) {
            case 0: text += "extends: \(pick(references))\n"
            case 1: text += "parity: [\(pick(references))]\n"
            case 2: text = "version: 1\nstack:\n  - {name: one, policy: \(pick(references))}\n  - {name: two, policy: \(pick(references))}\n"
            case 3: text += "rules: [ {status: 503, error: status_5xx, action: retry} ]\nbogus: \(secret.dropFirst(3))\n"
            default: text += "default: {error: internal_error, action: stop}\n"
            }
            try text.write(toFile: "\(outer)/\(directory)/\(name)", atomically: true, encoding: .utf8)
        }
        let destinations = [
            "../outside/secret.env", "../../outside", "..", ".", "/etc/passwd", "/", outer + "/outside/d/evil.yaml",
            "x0.yaml", "../a", "l0.yaml", "l1.yaml", "../../root", "/proc/self/environ", outer,
        ]
        for index in 0..<Int.random(in: 2...8, using: &random) {
            let directory = pick(["root", "root/a", "root/a/b", "root/c"])
            let name = pick(["l\(index).yaml", "l\(index)", "ln\(index).yml"])
            try? manager.createSymbolicLink(atPath: "\(outer)/\(directory)/\(name)", withDestinationPath: pick(destinations))
        }
    }

    @Test("random trees of files, folders and links, linted in every format")
    func randomTrees() async throws {
        await propertyCheck(count: 60, input: Gen.int(in: 0...1_000_000)) { seed in
            let outer = FileManager.default.temporaryDirectory.appendingPathComponent("tree-\(seed)-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: outer) }
            do {
                try Self.makeTree(seed: seed, outer: outer)
                let rootPath = try PolicyRoot(directory: outer + "/root").path
                let recorder = RecordingFileSystem(workingDirectory: rootPath)
                let root = try PolicyRoot(directory: rootPath, fileSystem: recorder)
                // Finding the root itself walks down to it; from here on
                // nothing outside may be touched.
                recorder.forget()
                let run = LintRun(root: root)
                let report = try run.lint(paths: ["."])
                var output = ""
                for format in LintFormat.allCases { output += run.render(report, format: format) }
                #expect(!output.contains(Self.secret), "seed \(seed): \(output)")
                let outside = recorder.paths.filter { $0 != rootPath && !$0.hasPrefix(rootPath + "/") }
                #expect(outside.isEmpty, "seed \(seed): touched \(outside)")
                // Bounded work: each entry looked at a bounded number of times.
                #expect(recorder.paths.count < 2_000, "seed \(seed): \(recorder.paths.count) file-system calls")
                // Each file once.
                #expect(Set(report.files).count == report.files.count, "seed \(seed): \(report.files)")
            } catch {
                Issue.record("seed \(seed): \(error)")
            }
        }
    }
}
