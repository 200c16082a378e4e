import RetryPolicyCore

/// RP109: a rule retries non-idempotent methods while the policy never says
/// which methods are safe to repeat.
enum ImplicitIdempotency: PolicyCheck {
    static let rule = LintRule(
        id: "RP109", name: "non-idempotent-retry", defaultSeverity: .warning,
        summary: "A rule retries non-idempotent methods but the policy has no idempotency setting.",
        explanation: """
            Retrying a POST or PATCH can perform it twice: a payment charged twice, an order placed \
            twice. RFC 9110 makes only GET, HEAD, PUT, DELETE, OPTIONS (and TRACE) idempotent. A rule \
            that names POST or PATCH and says `retry` shows the author wants those retried, but \
            without an `idempotency:` section the engine's defaults silently refuse (the request stops \
            with `not_idempotent` unless the caller marked it idempotent), so either the rule is dead \
            or the intent is unsafe. Say which it is.

            Fix, when the server deduplicates with an idempotency key:
                idempotency:
                  methods: [GET, HEAD, PUT, DELETE, OPTIONS]
                  honor_idempotent_requests: true     # callers mark POSTs that carry a key
            """)

    static let idempotent: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.attempts > 1, !policy.idempotency.isExplicit else { return [] }
        var findings: [LintFinding] = []
        for (index, rule) in policy.rules.enumerated() where rule.action == .retry {
            guard let methods = rule.methods else { continue }
            let unsafe = methods.subtracting(idempotent).sorted()
            guard !unsafe.isEmpty else { continue }
            let names = unsafe.map(\.rawValue).joined(separator: ", ")
            findings.append(finding(
                at: context.place(rule.location, policy),
                "\(ruleName(rule, index: index)) retries \(names), which is not idempotent, but the policy has no idempotency setting; by default \(names) stops with not_idempotent unless the caller marks the request idempotent",
                suggestion: "add an `idempotency:` section that states which methods are safe to repeat"))
        }
        return findings
    }
}
