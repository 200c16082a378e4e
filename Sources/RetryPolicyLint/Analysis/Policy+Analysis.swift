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

extension Rule {
    /// Whether the rule matches `input` sent with `method`.
    func matches(_ input: PolicyInput, method: HTTPMethod) -> Bool {
        switch input {
        case .status(let code): matches(status: code, method: method)
        case .transport(let failure): matches(transport: failure, method: method)
        }
    }
}

extension Policy {
    /// The index of the rule that decides `input` for `method`, by first
    /// match; `nil` when the default (or the implicit 2xx success) decides.
    func decidingRule(for input: PolicyInput, method: HTTPMethod) -> Int? {
        rules.firstIndex { $0.matches(input, method: method) }
    }

    /// What a rule or the default does, and whether it honours a server
    /// delay, for `input` sent with `method`.
    func decidingAction(for input: PolicyInput, method: HTTPMethod) -> (action: Rule.Action, honorsRetryAfter: Bool, ruleIndex: Int?)? {
        if let index = decidingRule(for: input, method: method) {
            let rule = rules[index]
            return (rule.action, rule.honorRetryAfter ?? retryAfter.honor, index)
        }
        if input.isImplicitSuccess { return (.success, false, nil) }
        guard let defaultRule else { return nil }
        return (defaultRule.action, retryAfter.honor, nil)
    }

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
