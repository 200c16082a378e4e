import RetryPolicyCore

/// Decoding of the `breaker` section.
extension PolicyDecoder {
    static let breakerKeys = [
        "window", "failure_ratio", "minimum_calls", "consecutive_failures", "break", "break_multiplier", "max_break",
        "half_open_probes", "failures", "error",
    ]
    static let breakerFailureKeys = ["rules", "errors", "statuses"]

    /// The `breaker` section; `ruleCount` bounds the rule indexes
    /// `failures.rules` may name.
    mutating func breaker(_ node: YAMLNode, ruleCount: Int, known: Set<SDKError.Kind>) -> CircuitBreakerConfiguration? {
        guard let fields = reader.fields(node, at: "breaker", allowed: Self.breakerKeys) else { return nil }
        var result = CircuitBreakerConfiguration(location: fields.location)
        if let node = fields["window"], let sampling = window(node, at: fields.path("window")) { result.sampling = sampling }
        if let node = fields["failure_ratio"],
            let value = reader.number(node, at: fields.path("failure_ratio"), in: PolicyBounds.Breaker.ratio)
        {
            if value > 0 {
                result.failureRatio = value
            } else {
                reader.expected(
                    "a ratio above 0 and at most 1", for: fields.path("failure_ratio"), found: node, rule: .outOfRange,
                    suggestion: "a ratio of 0 would open on the first call; remove the breaker instead")
            }
        }
        if let node = fields["minimum_calls"],
            let value = reader.integer(node, at: fields.path("minimum_calls"), in: PolicyBounds.Breaker.calls)
        {
            result.minimumCalls = value
        }
        if let node = fields["consecutive_failures"],
            let value = reader.integer(node, at: fields.path("consecutive_failures"), in: PolicyBounds.Breaker.calls)
        {
            result.consecutiveFailures = value
        }
        if let node = fields["break"], let value = reader.duration(node, at: fields.path("break"), positive: true) {
            result.breakDuration = value
        }
        if let node = fields["break_multiplier"],
            let value = reader.number(node, at: fields.path("break_multiplier"), in: PolicyBounds.Breaker.multiplier)
        {
            result.breakMultiplier = value
        }
        if let node = fields["max_break"], let value = reader.duration(node, at: fields.path("max_break"), positive: true) {
            if value < result.breakDuration {
                reader.report(
                    .outOfRange, at: node.location,
                    "\(fields.path("max_break")): expected a duration of at least the break (\(result.breakDuration.formattedForHumans)), found \(value.formattedForHumans)",
                    suggestion: "raise max_break or shorten break")
            } else {
                result.maxBreak = value
            }
        }
        if let node = fields["half_open_probes"],
            let value = reader.integer(node, at: fields.path("half_open_probes"), in: PolicyBounds.Breaker.probes)
        {
            result.halfOpenProbes = value
        }
        if let node = fields["failures"], let failures = failures(node, ruleCount: ruleCount, known: known) {
            result.failures = failures
        }
        if let node = fields["error"], let kind = reader.errorKind(node, at: fields.path("error"), known: known) {
            result.error = kind
        }
        return result
    }

    /// A number of calls (`100`) or a duration (`60s`).
    private mutating func window(_ node: YAMLNode, at keyPath: String) -> CircuitBreakerConfiguration.Sampling? {
        if case .scalar(let scalar) = node {
            switch scalar.resolved {
            case .integer, .oversizedInteger:
                return reader.integer(node, at: keyPath, in: PolicyBounds.Breaker.calls).map { .count($0) }
            case .string:
                return reader.duration(node, at: keyPath, positive: true).map { .time($0) }
            default: break
            }
        }
        reader.expected(
            "a number of calls (100) or a duration (60s)", for: keyPath, found: node,
            suggestion: "write 100 for the last 100 calls, or 60s for the calls of the last minute")
        return nil
    }

    private mutating func failures(_ node: YAMLNode, ruleCount: Int, known: Set<SDKError.Kind>)
        -> CircuitBreakerConfiguration.Failures?
    {
        guard let fields = reader.fields(node, at: "breaker.failures", allowed: Self.breakerFailureKeys) else { return nil }
        var result = CircuitBreakerConfiguration.Failures()
        var ok = true
        if let node = fields["rules"], let items = reader.list(node, at: fields.path("rules"), what: "a list of rule numbers") {
            for item in items {
                guard ruleCount > 0 else {
                    reader.expected("no rule number: the policy has no rules", for: fields.path("rules"), found: item, rule: .outOfRange)
                    ok = false
                    continue
                }
                // Rules are numbered from 1, as lint and `table` show them.
                if let number = reader.integer(item, at: fields.path("rules"), in: 1...ruleCount) {
                    result.rules.append(number - 1)
                } else {
                    ok = false
                }
            }
        }
        if let node = fields["errors"], let items = reader.list(node, at: fields.path("errors"), what: "a list of error kinds") {
            for item in items {
                if let kind = reader.errorKind(item, at: fields.path("errors"), known: known) { result.errors.insert(kind) } else { ok = false }
            }
        }
        if let node = fields["statuses"] {
            if let patterns = reader.statusPatterns(node, at: fields.path("statuses")) { result.statuses = patterns } else { ok = false }
        }
        return ok ? result : nil
    }
}
