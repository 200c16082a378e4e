import ArgumentParser
import RetryPolicyCore

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
    package static func run<Command: ParsableCommand>(_: Command.Type) async -> Int32 {
        do {
            var command = try Command.parseAsRoot()
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
            let message = Command.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { StandardOutput.write(message + "\n") }
                return ExitStatus.clean
            }
            // Usage errors quote the arguments given.
            if !message.isEmpty { StandardError.write(DisplayText.escapedLines(message) + "\n") }
            return code == .validationFailure || code.rawValue == 64 ? ExitStatus.usage : code.rawValue
        }
    }
}
