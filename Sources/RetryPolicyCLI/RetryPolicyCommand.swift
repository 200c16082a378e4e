import ArgumentParser
import Foundation
import RetryPolicyCore
import RetryPolicyCommandSupport

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
            ReplayCommand.self, TableCommand.self, DiffCommand.self, RequestCommand.self, InitCommand.self,
            ExportCommand.self, ImportCommand.self, LSPCommand.self,
        ]
    )

    /// Runs the command; every way out is one of the documented exit
    /// statuses (``CommandMain``).
    static func main() async {
        // `request` is a separate executable (see `RequestDispatch`).
        if let forwarded = RequestDispatch.forwardedArguments(Array(CommandLine.arguments.dropFirst())) {
            do {
                try RequestDispatch.run(forwarded)
            } catch {
                StandardError.write("error: \(DisplayText.escapedLines(error.message))\n")
            }
            Foundation.exit(ExitStatus.usage)
        }
        let status = await CommandMain.run(Self.self)
        Foundation.exit(status)
    }
}
