/// The keys of the policy format, in the order the format document lists
/// them; unknown-key messages list them in this order.
enum PolicyKeys {
    static let policy = [
        "version", "name", "description", "extends", "platform", "attempts", "idempotency", "backoff",
        "retry_after", "timeouts", "endpoints", "budget", "breaker", "rules", "default", "errors", "parity",
    ]
    static let stack = ["version", "name", "description", "stack", "max_amplification"]
    static let idempotency = ["methods", "honor_idempotent_requests"]
    static let backoff = ["initial", "max", "multiplier", "jitter"]
    static let retryAfter = ["honor", "cap", "above_cap", "combine", "cooldown", "headers"]
    static let header = ["name", "format"]
    static let timeouts = ["per_attempt", "total"]
    static let budget = ["capacity", "retry_cost", "timeout_retry_cost", "success_refund"]
    static let rule = ["status", "transport", "methods", "error", "action", "honor_retry_after", "refresh_credentials"]
    static let defaultRule = ["error", "action"]
    static let layer = ["name", "policy"]

    /// Keys only a policy (not a stack file) has: their presence next to
    /// `stack` means the file mixes the two kinds.
    static let policyOnly = Set(policy).subtracting(stack)
}

/// Upper bounds that keep numbers meaningful; beyond them a value is a
/// mistake (and the JSON Schema states the same bounds).
enum PolicyBounds {
    static let attempts = 1...100
    static let multiplier = 0.0...100.0
    static let budgetCapacity = 1...1_000_000
    static let budgetAmount = 0...1_000_000
    static let amplification = 1...1_000_000
}
