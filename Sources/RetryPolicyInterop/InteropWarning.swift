import RetryPolicyCore
import RetryPolicyYAML

/// Something the other format cannot say, or says differently: where it is
/// written (in the policy when exporting, in the foreign file when
/// importing) and what is lost.
public struct InteropWarning: Hashable, Sendable, CustomStringConvertible {
    /// A short stable name of the lost feature (`jitter`, `max_attempts`,
    /// `retry_after.headers`), for tests and for grepping.
    public var feature: String
    public var location: SourceLocation
    public var message: String

    public init(feature: String, location: SourceLocation, message: String) {
        self.feature = feature
        self.location = location
        self.message = message
    }

    /// `file:line:col: warning: message [feature]`, as compilers write.
    public var description: String { "\(location): warning: \(message) [\(feature)]" }
}
