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

    public var description: String {
        "\(location.file):\(location.line):\(location.column): error: \(message)"
            + (suggestion.map { "\n    suggestion: \($0)" } ?? "")
    }
}
