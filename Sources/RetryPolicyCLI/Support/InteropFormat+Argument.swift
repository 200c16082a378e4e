import ArgumentParser
import RetryPolicyInterop

/// The formats of `import`, `export` and `diff --from`: the registry's,
/// by their names.
extension InteropFormat: ExpressibleByArgument {
    public init?(argument: String) {
        self.init(rawValue: argument)
    }

    /// `grpc, envoy, istio, resilience4j or aws-config`.
    static func names(_ formats: [InteropFormat]) -> String {
        let names = formats.map(\.rawValue)
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }
}
