import ArgumentParser
import RetryPolicyCore
import RetryPolicyYAML

/// The `main` of the `retry-policy` executables: parses the arguments, runs
/// the command and maps every way out to the documented exit statuses.
package enum CommandMain {
    /// The exit status of running `Command` with the process's arguments: a
    /// ``CommandFailure`` is printed and is 2, an ``ExitCodeError`` is its
    /// status, help and version are 0, and swift-argument-parser's usage
    /// failure (EX_USAGE, 64) is the documented 2.
    ///
    /// A failure's message may quote a path, an argument or a file's text,
    /// composed in many places; each of its lines is made safe to print
    /// here (``DisplayText/escapedLines(_:)``), so none of them can steer
    /// the terminal or start a workflow command in a CI log.
    package static func run<Command: ParsableCommand>(_: Command.Type, arguments: [String]? = nil) async -> Int32 {
        let arguments = arguments ?? Array(CommandLine.arguments.dropFirst())
        if let message = unknownSubcommand(Command.self, arguments: arguments) {
            StandardError.write(DisplayText.escapedLines(message) + "\n")
            return ExitStatus.usage
        }
        do {
            var command = try Command.parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return ExitStatus.clean
        } catch let failure as CommandFailure {
            StandardError.write("error: \(DisplayText.escapedLines(failure.message))\n")
            return ExitStatus.usage
        } catch let exit as ExitCodeError {
            return exit.status
        } catch {
            let code = Command.exitCode(for: error)
            if code == .success {
                // Help (and the version), wrapped without breaking a quoted
                // argument or an example.
                let message = HelpText.message(Command.self, for: error)
                if !message.isEmpty { StandardOutput.write(message + "\n") }
                return ExitStatus.clean
            }
            let message = Command.fullMessage(for: error)
            // Usage errors quote the arguments given.
            if !message.isEmpty { StandardError.write(DisplayText.escapedLines(message) + "\n") }
            return code == .validationFailure || code.rawValue == 64 ? ExitStatus.usage : code.rawValue
        }
    }

    /// The error for a first argument that names no subcommand of a
    /// command made of subcommands (`retry-policy lnt`): "unknown command
    /// 'lnt'; did you mean 'lint'?", else the list of commands. swift-argument-parser
    /// alone says only "Unexpected argument". `nil` when the first argument is an
    /// option or a subcommand.
    package static func unknownSubcommand<Command: ParsableCommand>(_: Command.Type, arguments: [String]) -> String? {
        let subcommands = Command.configuration.subcommands
        guard !subcommands.isEmpty, let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = subcommands.map { $0._commandName }
        let accepted = names + subcommands.flatMap { $0.configuration.aliases } + ["help"]
        guard !accepted.contains(first) else { return nil }
        let shown = "'\(DisplayText.escaped(String(first.prefix(80))))'"
        let hint = Suggestion.closest(to: first, among: names).map { "did you mean '\($0)'?" }
            ?? "the commands are \(names.joined(separator: ", "))"
        return "error: unknown command \(shown); \(hint)\nSee '\(Command._commandName) --help'."
    }
}
