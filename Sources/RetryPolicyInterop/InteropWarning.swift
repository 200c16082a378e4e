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

/// The foreign formats.
public enum InteropFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case grpc
    case envoy
    case istio
    case resilience4j
    case awsConfig = "aws-config"

    public var description: String { rawValue }

    /// The formats a policy exports to.
    public static let exportable: [InteropFormat] = [.grpc, .envoy, .istio]

    /// What the format's file is, for messages.
    public var title: String {
        switch self {
        case .grpc: "gRPC service config"
        case .envoy: "Envoy route configuration"
        case .istio: "Istio VirtualService"
        case .resilience4j: "resilience4j retry configuration"
        case .awsConfig: "AWS shared config file"
        }
    }
}

/// Ids of import errors (the foreign file is malformed or breaks its own
/// format's rules). The loader's ids (RP001-RP009) are used for YAML and
/// file problems.
public enum InteropRule: String, Sendable, CaseIterable {
    /// A required field is missing.
    case missingField = "RPI01"
    /// A field has the wrong type.
    case wrongType = "RPI02"
    /// A value the format's own validation rejects.
    case invalidValue = "RPI03"
    /// The file is not of the named format (no retry settings found where
    /// the format keeps them).
    case notThisFormat = "RPI04"

    public var id: String { rawValue }
}

/// The located errors of an import.
public struct InteropError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

extension Diagnostic {
    init(_ rule: InteropRule, at location: SourceLocation, _ message: String) {
        self.init(id: rule.id, severity: .error, location: location, message: message)
    }
}
