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
            if path == "-" {
                // A test file on standard input; its `policy:` is relative to
                // the working directory.
                result.append(PolicyRoot.FoundFile(path: "-"))
                continue
            }
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

    /// The bytes of `path` (`-`: standard input), or why not.
    static func bytes(_ path: String, root: PolicyRoot) -> Result<[UInt8], PolicyLoadError> {
        path == "-" ? StandardInput.bytes() : root.readFile(path)
    }

    /// The text of `path` (`-`: standard input), or a usage error naming
    /// the file and why.
    static func read(_ path: String, root: PolicyRoot) throws(CommandFailure) -> String {
        switch bytes(path, root: root) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let error): throw CommandFailure(error.diagnostics.map(\.description).joined(separator: "\n"))
        }
    }

    /// Loads one policy for a command that needs it; load problems are
    /// printed compiler-style and end the command with status 1 (the file
    /// is wrong) or 2 (it does not exist, or may not be read).
    static func loadPolicy(_ path: String, root: PolicyRoot) throws -> Policy {
        if path != "-", case .failure(let denial) = root.locate(path), denial.kind == .notFound {
            throw CommandFailure("\(path): no such file")
        }
        let bytes: [UInt8]
        switch self.bytes(path, root: root) {
        case .success(let read): bytes = read
        case .failure(let error): throw CommandFailure(error.diagnostics.map(\.description).joined(separator: "\n"))
        }
        do {
            return try PolicyLoader(root: root).loadPolicy(bytes: bytes, path: path == "-" ? LintRun.standardInputName : path)
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

/// Standard input, read as a policy file is: never more than the size limit
/// plus one byte.
enum StandardInput {
    static func bytes(limits: YAMLLimits = .default) -> Result<[UInt8], PolicyLoadError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limits.maxBytes {
            let wanted = min(chunk.count, limits.maxBytes + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(PolicyLoadError(diagnostics: [Diagnostic(
                    id: LoaderRule.unreadableFile.id, location: SourceLocation(file: LintRun.standardInputName, line: 1, column: 1),
                    message: "expected to read a policy from standard input, found a read error (\(String(cString: strerror(errno))))")]))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[..<count])
        }
        return .failure(PolicyLoadError(diagnostics: [Diagnostic(
            id: LoaderRule.limitExceeded.id, location: SourceLocation(file: LintRun.standardInputName, line: 1, column: 1),
            message: "expected a policy file of at most \(limits.maxBytes) bytes, found more on standard input")]))
    }
}
