import Foundation

/// A failure that is the user's input or environment rather than a finding:
/// a missing file, an unreadable configuration, a malformed argument. Exits
/// with status 2, the documented "usage or I/O error" code, so CI can tell
/// "the policy is wrong" (1) from "the tool was called wrongly" (2).
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }

    init(_ message: String) { self.message = message }
}

/// The exit statuses of every subcommand.
enum ExitStatus {
    static let clean: Int32 = 0
    /// Lint errors (or warnings under --strict), failed policy tests,
    /// policies that differ.
    static let findings: Int32 = 1
    /// Usage or I/O error.
    static let usage: Int32 = 2
}

/// Standard error, unbuffered, for diagnostics that must not mix with
/// machine-readable standard output.
enum StandardError {
    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// Writes to standard output without Foundation's buffering surprises.
enum StandardOutput {
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Whether standard output is a terminal: colour only then.
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}
