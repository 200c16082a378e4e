import RetryPolicyCore

/// One thing that can happen on an attempt, as the analyses enumerate them:
/// a status code without headers, or a transport failure class.
public enum PolicyInput: Hashable, Sendable, Comparable, CustomStringConvertible {
    case status(Int)
    case transport(TransportFailure)

    /// Every status HTTP defines, then every transport class: the whole
    /// input space a policy must answer for.
    public static let all: [PolicyInput] =
        StatusPattern.validCodes.map(PolicyInput.status) + TransportFailure.allCases.map(PolicyInput.transport)

    public var outcome: AttemptOutcome {
        switch self {
        case .status(let code): .status(code)
        case .transport(let failure): .transport(failure)
        }
    }

    /// 2xx responses no rule matches are successes whatever the default
    /// says, so they need no covering rule.
    public var isImplicitSuccess: Bool {
        if case .status(let code) = self { return (200...299).contains(code) }
        return false
    }

    public var description: String {
        switch self {
        case .status(let code): "status \(code)"
        case .transport(let failure): "transport \(failure.rawValue)"
        }
    }

    public static func < (lhs: PolicyInput, rhs: PolicyInput) -> Bool {
        switch (lhs, rhs) {
        case (.status(let a), .status(let b)): a < b
        case (.status, .transport): true
        case (.transport, .status): false
        case (.transport(let a), .transport(let b)):
            TransportFailure.allCases.firstIndex(of: a)! < TransportFailure.allCases.firstIndex(of: b)!
        }
    }
}

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
