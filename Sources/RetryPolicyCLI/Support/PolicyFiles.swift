import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML

/// `--root`: the directory every file a command reads must lie in.
struct RootOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read files only inside this directory (default: the enclosing git work tree, else the working directory).",
        valueName: "DIR"))
    var root: String?

    /// The root named, or the default one.
    func policyRoot() throws(CommandFailure) -> PolicyRoot {
        do {
            if let root { return try PolicyRoot(directory: root) }
            return try PolicyRoot.enclosing()
        } catch {
            throw CommandFailure(error.description)
        }
    }
}

/// Finding, reading and loading the files the subcommands work on, all
/// through a ``PolicyRoot``.
enum PolicyFiles {
    /// The policy test files under `paths` (`*.tests.yaml`, `*.tests.yml`);
    /// a policy file given directly (as pre-commit does) stands for its
    /// tests beside it.
    static func testFiles(in paths: [String], root: PolicyRoot) throws(CommandFailure) -> [PolicyRoot.FoundFile] {
        var result: [PolicyRoot.FoundFile] = []
        for path in paths {
            let found: [PolicyRoot.FoundFile]
            do {
                found = try root.files(under: [path]) { LintRun.isTestFile($0) || $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            } catch {
                throw CommandFailure(error.description)
            }
            let isDirectory = found.count != 1 || found[0].path != path
            for file in found {
                if LintRun.isTestFile(file.path) {
                    if !result.contains(file) { result.append(file) }
                } else if !isDirectory, let sibling = testFile(besidePolicy: file.path, root: root),
                    !result.contains(where: { $0.path == sibling })
                {
                    result.append(PolicyRoot.FoundFile(path: sibling))
                }
            }
        }
        return result
    }

    /// `tmdb.tests.yaml` beside `tmdb.yaml`, when it exists.
    static func testFile(besidePolicy path: String, root: PolicyRoot) -> String? {
        for ext in [".yaml", ".yml"] where path.hasSuffix(ext) {
            let base = String(path.dropLast(ext.count))
            for candidate in [base + ".tests.yaml", base + ".tests.yml"] where root.exists(candidate) {
                return candidate
            }
        }
        return nil
    }

    /// The text of `path`, or a usage error naming the file and why.
    static func read(_ path: String, root: PolicyRoot) throws(CommandFailure) -> String {
        switch root.readFile(path) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let error): throw CommandFailure(error.diagnostics.map(\.description).joined(separator: "\n"))
        }
    }

    /// Loads one policy for a command that needs it; load problems are
    /// printed compiler-style and end the command with status 1 (the file
    /// is wrong) or 2 (it does not exist, or may not be read).
    static func loadPolicy(_ path: String, root: PolicyRoot) throws -> Policy {
        if case .failure(let denial) = root.locate(path), denial.kind == .notFound {
            throw CommandFailure("\(path): no such file")
        }
        let bytes: [UInt8]
        switch root.readFile(path) {
        case .success(let read): bytes = read
        case .failure(let error): throw CommandFailure(error.diagnostics.map(\.description).joined(separator: "\n"))
        }
        do {
            return try PolicyLoader(root: root).loadPolicy(bytes: bytes, path: path)
        } catch {
            for diagnostic in error.diagnostics { StandardError.write(diagnostic.description + "\n") }
            throw ExitCodeError(status: ExitStatus.findings)
        }
    }
}

/// Ends a command with `status` after it has printed its own output.
struct ExitCodeError: Error {
    var status: Int32
}
