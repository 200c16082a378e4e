import RetryPolicyCore
import RetryPolicyYAML

/// Something the other format cannot say, or says differently: where it is
/// written (in the policy when exporting, in the foreign file when
/// importing) and what is lost.
public struct InteropWarning: Hashable, Sendable, CustomStringConvertible {
    /// A warning whose id is the lost feature.
    public var diagnostic: Diagnostic

    public init(feature: String, location: SourceLocation, message: String) {
        diagnostic = Diagnostic(id: feature, severity: .warning, location: location, message: message)
    }

    /// A short stable name of the lost feature (`jitter`, `max_attempts`,
    /// `retry_after.headers`), for tests and for grepping.
    public var feature: String { diagnostic.id ?? "" }
    public var location: SourceLocation { diagnostic.location }
    public var message: String { diagnostic.message }

    /// `file:line:col: warning: message [feature]`, as compilers write.
    public var description: String { diagnostic.description }
}
