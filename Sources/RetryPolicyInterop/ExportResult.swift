import RetryPolicyCore

/// What an export produced: the document and what it could not carry.
public struct ExportResult: Sendable {
    public var format: InteropFormat
    package var document: InteropValue
    public var warnings: [InteropWarning]

    /// The document as the target tool reads it: JSON for gRPC, YAML for
    /// Envoy and Istio.
    public var text: String {
        format == .grpc ? document.json() + "\n" : document.yaml()
    }
}
