import RetryPolicyCore

/// RP113: retries multiply across the layers a request passes through.
enum RetryAmplification {
    static let rule = LintRule(
        id: "RP113", name: "retry-amplification", defaultSeverity: .warning,
        summary: "The layers of a declared stack multiply retries past max_amplification.",
        explanation: """
            When an app retries an SDK call that retries an HTTP request through a gateway that \
            retries upstream, each layer's attempts multiply: 3 x 3 x 3 turns one failing user action \
            into 27 requests against a server that is already failing. This is how retries turn a \
            brief blip into an outage (Google SRE book, "Handling Overload"). A stack file declares \
            the layers; this rule multiplies their `attempts` and warns above `max_amplification` \
            (default 10).

            Fix: retry at one layer only (usually the one closest to the failure), and make the \
            others single-attempt; or use a retry budget so the product is bounded in practice.
            """)

    static func check(stack: PolicyStack, layers: [(layer: PolicyStack.Layer, policy: Policy)], file: String) -> [LintFinding] {
        guard layers.count == stack.layers.count, !layers.isEmpty else { return [] }
        var product = 1
        for (_, policy) in layers {
            let (value, overflow) = product.multipliedReportingOverflow(by: max(policy.attempts, 1))
            product = overflow ? Int.max : value
        }
        guard product > stack.maxAmplification else { return [] }
        let factors = layers.map { "\($0.policy.attempts)" }.joined(separator: " x ")
        let named = layers.map { "\($0.layer.name) \($0.policy.attempts)" }.joined(separator: ", ")
        let location = stack.location ?? SourceLocation(file: file, line: 1, column: 1)
        return [LintFinding(
            id: rule.id, severity: rule.defaultSeverity, location: location,
            message: "one failing request through \(stack.name) can cause \(factors) = \(product) requests (\(named)), above max_amplification \(stack.maxAmplification)",
            suggestion: "retry in one layer only and make the others single-attempt")]
    }
}
