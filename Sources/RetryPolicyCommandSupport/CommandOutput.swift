import Foundation

/// A failure that is the user's input or environment rather than a finding:
/// a missing file, an unreadable configuration, a malformed argument. Exits
/// with status 2, the documented "usage or I/O error" code, so CI can tell
/// "the policy is wrong" (1) from "the tool was called wrongly" (2).
package struct CommandFailure: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }

    package init(_ message: String) { self.message = message }
}

/// The exit statuses every command shares (`retry-policy request` adds
/// codes for the error kinds a request fails with).
package enum ExitStatus {
    package static let clean: Int32 = 0
    /// Lint errors (or warnings under --strict), failed policy tests,
    /// policies that differ.
    package static let findings: Int32 = 1
    /// Usage or I/O error.
    package static let usage: Int32 = 2
}

/// Standard error, unbuffered, for diagnostics that must not mix with
/// machine-readable standard output.
package enum StandardError {
    package static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// Writes to standard output without Foundation's buffering surprises.
package enum StandardOutput {
    package static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Whether standard output is a terminal: colour only then.
    package static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}

/// Ends a command with `status` after it has printed its own output.
package struct ExitCodeError: Error {
    package var status: Int32

    package init(status: Int32) { self.status = status }
}
