import RetryPolicyCore

/// Decoding of the `rate_limit` section: `rate_limit: adaptive`, or a
/// mapping with `mode: adaptive` and the parameters to change.
extension PolicyDecoder {
    static let rateLimitKeys = [
        "mode", "beta", "scale_constant", "smoothing", "measurement_interval", "min_rate", "max_rate_scale", "max_wait",
        "throttling_errors",
    ]
    /// The limiters `rate_limit` names; AWS adaptive mode is the only one.
    static let rateLimitModes = ["adaptive"]

    mutating func rateLimit(_ node: YAMLNode, known: Set<SDKError.Kind>) -> AdaptiveRateLimit? {
        if case .scalar = node {
            return reader.choice(node, at: "rate_limit", among: Self.rateLimitModes).map { _ in AdaptiveRateLimit.aws }
        }
        guard let fields = reader.fields(node, at: "rate_limit", allowed: Self.rateLimitKeys, required: ["mode"]) else {
            return nil
        }
        guard let modeNode = fields["mode"], reader.choice(modeNode, at: fields.path("mode"), among: Self.rateLimitModes) != nil
        else { return nil }
        typealias Bounds = PolicyBounds.RateLimit
        var result = AdaptiveRateLimit.aws
        if let value = aboveZero(fields, "beta", atMost: Bounds.beta.upperBound) { result.beta = value }
        if let value = aboveZero(fields, "scale_constant", atMost: Bounds.scaleConstant.upperBound) { result.scaleConstant = value }
        if let value = aboveZero(fields, "smoothing", atMost: Bounds.smoothing.upperBound) { result.smoothing = value }
        if let node = fields["measurement_interval"],
            let value = reader.duration(node, at: fields.path("measurement_interval"), positive: true)
        {
            result.measurementInterval = value
        }
        if let value = aboveZero(fields, "min_rate", atMost: Bounds.minimumRate.upperBound) { result.minimumRate = value }
        if let node = fields["max_rate_scale"],
            let value = reader.number(node, at: fields.path("max_rate_scale"), in: Bounds.maximumRateScale)
        {
            result.maximumRateScale = value
        }
        if let node = fields["max_wait"], let value = reader.duration(node, at: fields.path("max_wait"), positive: true) {
            result.maximumWait = value
        }
        if let node = fields["throttling_errors"],
            let items = reader.list(node, at: fields.path("throttling_errors"), what: "a list of error kinds")
        {
            var kinds: Set<SDKError.Kind> = []
            for item in items {
                if let kind = reader.errorKind(item, at: fields.path("throttling_errors"), known: known) { kinds.insert(kind) }
            }
            result.throttlingErrors = kinds
        }
        return result
    }

    /// `key`'s number, above 0 and at most `upper` (the schema's
    /// exclusiveMinimum 0).
    private mutating func aboveZero(_ fields: Fields, _ key: String, atMost upper: Double) -> Double? {
        guard let node = fields[key], let value = reader.number(node, at: fields.path(key), in: 0...upper) else { return nil }
        guard value > 0 else {
            reader.expected(
                "a number above 0 and at most \(NumberText.number(upper))", for: fields.path(key), found: node,
                rule: .outOfRange)
            return nil
        }
        return value
    }
}
