import ArgumentParser
import RetryPolicyInterop
import RetryPolicyYAML

/// The formats of `import`, `export` and `diff --from`: the registry's,
/// by their names.
extension InteropFormat: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    /// `grpc, envoy, istio, resilience4j or aws-config`.
    static func names(_ formats: [InteropFormat]) -> String {
        FieldReader.alternatives(formats.map(\.rawValue))
    }

    /// `grpc: WHAT IT WRITES. envoy: ...`, for `export`'s help.
    static var exportHelp: String {
        InteropRegistry.handlers.compactMap { handler in handler.exportHelp.map { "\(handler.format): \($0)." } }
            .joined(separator: " ")
    }
}
