import RetryPolicyCore

/// What an export produced: the document and what it could not carry.
public struct ExportResult: Sendable {
    public var format: InteropFormat
    package var document: InteropValue
    public var warnings: [InteropWarning]
    /// Documents written after `document`, as `kubectl apply -f` takes
    /// them: Istio's DestinationRule beside the route.
    package var following: [InteropValue] = []

    /// The document as the target tool reads it: JSON for gRPC, YAML for
    /// Envoy and Istio.
    public var text: String {
        format == .grpc ? json : yaml
    }

    /// The documents in YAML, separated by `---`.
    public var yaml: String {
        ([document] + following).map { $0.yaml() }.joined(separator: "---\n")
    }

    /// The documents in JSON, one after the other.
    public var json: String {
        ([document] + following).map { $0.json() + "\n" }.joined()
    }
}
