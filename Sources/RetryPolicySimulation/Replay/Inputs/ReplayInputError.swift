import RetryPolicyCore

/// Why a recording cannot be read at all (as opposed to one bad line,
/// which is a warning `Diagnostic` and is skipped).
public struct ReplayInputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the recording cannot be read, why, and what to do instead.
    public var diagnostic: Diagnostic

    public init(location: SourceLocation, message: String, suggestion: String? = nil) {
        diagnostic = Diagnostic(severity: .error, location: location, message: message, suggestion: suggestion)
    }

    /// The diagnostic, its suggestion on a line of its own; the file name
    /// and the message may carry text from the recording or the command
    /// line, and each part is made safe to print.
    public var description: String { diagnostic.indentedDescription }
}
