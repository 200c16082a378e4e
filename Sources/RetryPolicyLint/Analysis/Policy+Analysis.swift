import RetryPolicyCore

/// The methods worth distinguishing for a set of policies: the standard ones
/// plus any extension method a rule or idempotency list names.
public func distinguishedMethods(of policies: [Policy]) -> [HTTPMethod] {
    var methods = HTTPMethod.standard
    for policy in policies {
        var named = policy.idempotency.retryableMethods
        for rule in policy.rules { named.formUnion(rule.methods ?? []) }
        for method in named.sorted() where !methods.contains(method) { methods.append(method) }
    }
    return methods
}

extension CompiledPolicy {
    /// What a rule or the default does, and whether it honours a server
    /// delay, for `input` sent with `method`; `nil` when nothing decides
    /// (no rule matches and the policy has no default).
    func decidingAction(for input: PolicyInput, method: HTTPMethod) -> (action: Rule.Action, honorsRetryAfter: Bool, ruleIndex: Int?)? {
        let resolution = resolution(for: input.outcome, method: method)
        if case .implicitStop = resolution.source { return nil }
        return (resolution.action, resolution.honorsRetryAfter, resolution.ruleIndex)
    }
}

extension Policy {
    /// The same policy without its token bucket, so that analyses which
    /// decide thousands of times do not drain it and change their own
    /// answers.
    var withoutBudget: Policy {
        var copy = self
        copy.budget = nil
        return copy
    }
}

extension Policy {
    /// Whether the policy can ever schedule a retry.
    var retries: Bool {
        attempts > 1 && (rules.contains { $0.action == .retry } || defaultRule?.action == .retry)
    }
}
