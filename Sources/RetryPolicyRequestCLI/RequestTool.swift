import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyYAML

/// `retry-policy-request`: the `request` command of `retry-policy` as an
/// executable of its own, so that the lint commands build and link without
/// NIO, AsyncHTTPClient, BoringSSL and PostgresNIO. `retry-policy request
/// ARGS...` runs `retry-policy-request ARGS...`; the exit statuses are the
/// ones `retry-policy` documents.
@main
enum RequestTool {
    static func main() async {
        let status: Int32
        do {
            var command = try RequestCommand.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            status = RequestExitStatus.success
        } catch let failure as CommandFailure {
            StandardError.write("error: \(failure.message)\n")
            status = RequestExitStatus.usage
        } catch let exit as ExitCodeError {
            status = exit.status
        } catch {
            let code = RequestCommand.exitCode(for: error)
            let message = RequestCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { FileHandle.standardOutput.write(Data((message + "\n").utf8)) }
                status = RequestExitStatus.success
            } else {
                if !message.isEmpty { StandardError.write(message + "\n") }
                // swift-argument-parser's usage failure (EX_USAGE, 64) is the
                // documented 2.
                status = code == .validationFailure || code.rawValue == 64 ? RequestExitStatus.usage : code.rawValue
            }
        }
        exit(status)
    }
}

/// A failure of the user's input or environment (a bad URL, an unreadable
/// file, an unreachable state database): exit status 2.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }

    init(_ message: String) { self.message = message }
}

/// Ends the command with `status` after it has printed its own output.
struct ExitCodeError: Error {
    var status: Int32
}

/// Standard error, unbuffered.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// `--root`, as every `retry-policy` command has it.
struct RootOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read files only inside this directory (default: the enclosing git work tree, else the working directory).",
        valueName: "DIR"))
    var root: String?

    func policyRoot() throws(CommandFailure) -> PolicyRoot {
        do {
            if let root { return try PolicyRoot(directory: root) }
            return try PolicyRoot.enclosing()
        } catch {
            throw CommandFailure(error.description)
        }
    }
}

enum PolicyFiles {
    /// The name diagnostics give standard input, as `retry-policy` does.
    static let standardInputName = "<stdin>"

    /// Loads the policy the request runs under, as `retry-policy` loads one:
    /// load problems are printed compiler-style and end the command with
    /// status 1 (the file is wrong) or 2 (it does not exist, or may not be
    /// read). `-` reads standard input, never more than the size limit.
    static func loadPolicy(_ path: String, root: PolicyRoot) throws -> Policy {
        if path != "-", case .failure(let denial) = root.locate(path), denial.kind == .notFound {
            throw CommandFailure("\(path): no such file")
        }
        let bytes: [UInt8]
        if path == "-" {
            let limit = YAMLLimits.default.maxBytes
            let data = FileHandle.standardInput.readData(ofLength: limit + 1)
            guard data.count <= limit else {
                throw CommandFailure(Diagnostic(
                    id: LoaderRule.limitExceeded.id, location: SourceLocation(file: standardInputName, line: 1, column: 1),
                    message: "expected a policy file of at most \(limit) bytes, found more on standard input").description)
            }
            bytes = Array(data)
        } else {
            switch root.readFile(path) {
            case .success(let read): bytes = read
            case .failure(let error): throw CommandFailure(error.diagnostics.map(\.description).joined(separator: "\n"))
            }
        }
        do {
            return try PolicyLoader(root: root).loadPolicy(bytes: bytes, path: path == "-" ? standardInputName : path)
        } catch {
            for diagnostic in error.diagnostics { StandardError.write(diagnostic.description + "\n") }
            throw ExitCodeError(status: RequestExitStatus.policyInvalid)
        }
    }
}
