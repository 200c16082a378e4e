import RetryPolicyCore

/// Decoding of the `hedging` section.
extension PolicyDecoder {
    static let hedgingKeys = ["delay", "methods"]

    /// The `hedging` section: `delay` (required) and `methods`.
    mutating func hedging(_ node: YAMLNode) -> HedgingPolicy? {
        guard let fields = reader.fields(node, at: "hedging", allowed: Self.hedgingKeys, required: ["delay"]),
            let delayNode = fields["delay"],
            let delay = reader.duration(delayNode, at: fields.path("delay"), positive: true)
        else { return nil }
        var result = HedgingPolicy(delay: delay, location: fields.location)
        if let node = fields["methods"] {
            guard let methods = reader.methods(node, at: fields.path("methods"), nonEmpty: true) else { return nil }
            result.methods = methods
        }
        return result
    }
}
