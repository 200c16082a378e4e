import Foundation
import RetryPolicyCore
import RetryPolicyYAML

/// Reading and loading the files commands work on, all through a
/// ``PolicyRoot``; `-` is standard input.
package enum PolicyFiles {
    /// The bytes of `path` (`-`: standard input), or why not.
    package static func bytes(_ path: String, root: PolicyRoot) -> Result<[UInt8], PolicyLoadError> {
        path == "-" ? StandardInput.bytes() : root.readFile(path)
    }

    /// The text of `path` (`-`: standard input), or a usage error naming
    /// the file and why.
    package static func read(_ path: String, root: PolicyRoot) throws(CommandFailure) -> String {
        switch bytes(path, root: root) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let error): throw CommandFailure(error.diagnostics.map { DisplayText.escaped($0.description) }.joined(separator: "\n"))
        }
    }

    /// Loads one policy for a command that needs it; load problems are
    /// printed compiler-style and end the command with status 1 (the file
    /// is wrong) or 2 (it does not exist, or may not be read).
    package static func loadPolicy(_ path: String, root: PolicyRoot) throws -> Policy {
        if path != "-", case .failure(let denial) = root.locate(path), denial.kind == .notFound {
            throw CommandFailure(DisplayText.escaped(root.noSuchFileMessage(path, what: "no such file")))
        }
        let bytes: [UInt8]
        switch self.bytes(path, root: root) {
        case .success(let read): bytes = read
        case .failure(let error): throw CommandFailure(error.diagnostics.map { DisplayText.escaped($0.description) }.joined(separator: "\n"))
        }
        do {
            return try PolicyLoader(root: root).loadPolicy(bytes: bytes, path: path == "-" ? PolicyRoot.standardInputName : path)
        } catch {
            for diagnostic in error.diagnostics { StandardError.write(DisplayText.escaped(diagnostic.description) + "\n") }
            throw ExitCodeError(status: ExitStatus.findings)
        }
    }
}

/// Standard input, read as a policy file is: never more than the size limit
/// plus one byte.
package enum StandardInput {
    package static func bytes(limits: YAMLLimits = .default) -> Result<[UInt8], PolicyLoadError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limits.maxBytes {
            let wanted = min(chunk.count, limits.maxBytes + 1 - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(PolicyLoadError(diagnostics: [Diagnostic(
                    id: LoaderRule.unreadableFile.id, location: SourceLocation(file: PolicyRoot.standardInputName, line: 1, column: 1),
                    message: "expected to read a policy from standard input, found a read error (\(String(cString: strerror(errno))))")]))
            }
            if count == 0 { return .success(bytes) }
            bytes.append(contentsOf: chunk[..<count])
        }
        return .failure(PolicyLoadError(diagnostics: [Diagnostic(
            id: LoaderRule.limitExceeded.id, location: SourceLocation(file: PolicyRoot.standardInputName, line: 1, column: 1),
            message: "expected a policy file of at most \(limits.maxBytes) bytes, found more on standard input")]))
    }
}
