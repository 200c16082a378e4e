import ArgumentParser
import Foundation
import RetryPolicyCore

/// `retry-policy`: lint, test, explain and compare retry policy files.
@main
struct RetryPolicyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry-policy",
        abstract: "Lint, test, explain and compare retry policies written as YAML.",
        discussion: """
            A retry policy file says which responses and transport failures a client retries, how \
            long it waits and which error it reports. This tool checks policies in CI (lint, test), \
            answers "what happens if..." at your desk (decide, simulate), and generates \
            documentation and parity checks from them (table, diff).

            Exit status: 0 clean; 1 lint errors, failed policy tests or differing policies; \
            2 usage or I/O error.
            """,
        version: RetryPolicyVersion.current,
        subcommands: [
            LintCommand.self, TestCommand.self, DecideCommand.self, SimulateCommand.self,
            TableCommand.self, DiffCommand.self, RequestCommand.self, InitCommand.self,
            ExportCommand.self, ImportCommand.self,
        ]
    )

    /// Runs the command and maps every way out to the documented exit
    /// statuses; swift-argument-parser's own usage failure (EX_USAGE, 64)
    /// becomes 2.
    static func main() async {
        // `request` is a separate executable (see `RequestDispatch`).
        if let forwarded = RequestDispatch.forwardedArguments(Array(CommandLine.arguments.dropFirst())) {
            do {
                try RequestDispatch.run(forwarded)
            } catch {
                StandardError.write("error: \(error.message)\n")
            }
            Foundation.exit(ExitStatus.usage)
        }
        let status: Int32
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            status = ExitStatus.clean
        } catch let failure as CommandFailure {
            StandardError.write("error: \(failure.message)\n")
            status = ExitStatus.usage
        } catch let exit as ExitCodeError {
            status = exit.status
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { StandardOutput.write(message + "\n") }
                status = ExitStatus.clean
            } else {
                if !message.isEmpty { StandardError.write(message + "\n") }
                status = code == .validationFailure || code.rawValue == 64 ? ExitStatus.usage : code.rawValue
            }
        }
        Foundation.exit(status)
    }
}
