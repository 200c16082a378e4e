import RetryPolicyCore
import RetryPolicyInterop

/// RP128: a gRPC channel that retries by its service config, in a stack
/// where this engine also applies a retrying policy to the same calls.
enum TwoRetryLayers {
    static let rule = LintRule(
        id: "RP128", name: "two-retry-layers", defaultSeverity: .warning,
        summary: "A gRPC service config retries or hedges calls that a policy of this engine retries too.",
        explanation: """
            A gRPC channel whose service config gives a method a `retryPolicy` or a `hedgingPolicy` \
            retries (or hedges) inside the channel (gRFC A6). When this engine also applies a policy \
            to the same calls (a client interceptor, or a wrapper around the stub), every attempt the \
            policy makes is itself up to `maxAttempts` attempts: 3 policy attempts over a retryPolicy \
            of 4 are 12 calls against a server that is failing. gRFC A6 names the case ("Disabling \
            Retries"): libraries that wrap gRPC with their own retries turn gRPC's off. The stack \
            declares both layers; this rule reports the pair whatever `max_amplification` says.

            Fix: retry in one layer only. Remove the method config's retryPolicy or hedgingPolicy \
            (or disable retries on the channel), or make the policy single-attempt.
            """)

    static func check(
        stack: PolicyStack, layers: [(layer: PolicyStack.Layer, policy: Policy)], importedFrom formats: [InteropFormat?],
        file: String
    ) -> [LintFinding] {
        guard formats.count == layers.count else { return [] }
        let engine = layers.indices.filter { formats[$0] == nil && layers[$0].policy.attempts > 1 }
        guard !engine.isEmpty else { return [] }
        var findings: [LintFinding] = []
        for index in layers.indices where formats[index] == .grpc {
            let (layer, policy) = layers[index]
            // Imported, a retryPolicy or a hedgingPolicy makes more than
            // one attempt; a method config without either makes one.
            guard policy.attempts > 1 else { continue }
            let how = policy.hedging == nil ? "retryPolicy" : "hedgingPolicy"
            var product = policy.attempts
            for other in engine {
                let (value, overflow) = product.multipliedReportingOverflow(by: layers[other].policy.attempts)
                product = overflow ? Int.max : value
            }
            let factors = ([policy.attempts] + engine.map { layers[$0].policy.attempts }).map(String.init).joined(separator: " x ")
            let names = engine.map { "\(layers[$0].layer.name) (\(layers[$0].policy.attempts) attempts)" }
                .joined(separator: ", ")
            let location = layer.location ?? stack.location ?? SourceLocation(file: file, line: 1, column: 1)
            findings.append(LintFinding(
                id: rule.id, severity: rule.defaultSeverity, location: location,
                message: "layer \(layer.name) is a gRPC service config whose \(how) makes up to \(policy.attempts) attempts inside each attempt of \(names): \(factors) = \(product) calls per request",
                suggestion: "retry in one layer only: remove the method config's \(how), or make the policy single-attempt"))
        }
        return findings
    }
}
