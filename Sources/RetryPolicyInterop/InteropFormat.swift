/// The foreign formats. Each has one ``InteropFormatHandler`` in
/// ``InteropRegistry/handlers``, which the commands, lint's stack layers
/// and the tests go through.
public enum InteropFormat: String, Sendable, CaseIterable, CustomStringConvertible {
    case grpc
    case envoy
    case istio
    case resilience4j
    case awsConfig = "aws-config"

    public var description: String { rawValue }

    /// The formats a policy exports to.
    public static var exportable: [InteropFormat] {
        InteropRegistry.handlers.filter(\.canExport).map(\.format)
    }

    /// The handler that reads and writes this format.
    public var handler: any InteropFormatHandler {
        // Every case has a handler: InteropRegistryTests checks it.
        InteropRegistry.handlers.first { $0.format == self }!
    }

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
