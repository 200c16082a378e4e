import RetryPolicyCore

/// Why a recording cannot be read at all (as opposed to one bad line).
public struct ReplayInputError: Error, Hashable, Sendable, CustomStringConvertible {
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
        DisplayText.escaped("\(location.file):\(location.line):\(location.column): error: \(message)")
            + (suggestion.map { "\n    suggestion: " + DisplayText.escaped($0) } ?? "")
    }
}
