import RetryPolicyCore

/// A line or entry of a recording that replay could not use: where it is,
/// what was expected, and what to do about it. Never echoes the line's
/// content, which may be confidential.
public struct ReplayDiagnostic: Error, Hashable, Sendable, CustomStringConvertible {
    public var location: SourceLocation
    public var message: String
    public var suggestion: String?

    public init(location: SourceLocation, message: String, suggestion: String? = nil) {
        self.location = location
        self.message = message
        self.suggestion = suggestion
    }

    /// The file name and the message may carry text from the recording
    /// or the command line: each line is made safe to print.
    public var description: String {
        DisplayText.escaped("\(location.file):\(location.line):\(location.column): warning: \(message)")
            + (suggestion.map { "\n    suggestion: " + DisplayText.escaped($0) } ?? "")
    }
}
