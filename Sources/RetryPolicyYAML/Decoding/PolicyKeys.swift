import RetryPolicyCore

/// The keys of the policy format, in the order the format document lists
/// them; unknown-key messages list them in this order.
enum PolicyKeys {
    static let policy = [
        "version", "name", "description", "extends", "platform", "attempts", "idempotency", "backoff",
        "retry_after", "timeouts", "endpoints", "budget", "breaker", "hedging", "rate_limit", "conditions", "rules",
        "default", "errors", "parity",
    ]
    static let stack = ["version", "name", "description", "stack", "max_amplification"]
    static let idempotency = ["methods", "honor_idempotent_requests"]
    /// Each shape's parameter key (`Backoff.Growth.fileShapes`) after
    /// `initial`.
    static let backoff: [String] = {
        var keys = ["shape", "initial"]
        for shape in Backoff.Growth.fileShapes where !keys.contains(shape.parameter.key) { keys.append(shape.parameter.key) }
        return keys + ["max", "min", "jitter"]
    }()
    static let retryAfter = ["honor", "cap", "above_cap", "combine", "cooldown", "headers"]
    static let header = ["name", "format"]
    static let timeouts = ["per_attempt", "total"]
    static let budget = [
        "preset", "capacity", "retry_cost", "timeout_retry_cost", "throttling_retry_cost", "throttling_errors", "success_refund",
        "max_tokens", "token_ratio", "retry_percent", "min_retries_per_second", "window",
    ]
    /// The budget keys of the token-bucket style (AWS); the rest are gRPC's.
    static let tokenBucketBudget = [
        "capacity", "retry_cost", "timeout_retry_cost", "throttling_retry_cost", "throttling_errors", "success_refund",
    ]
    static let grpcBudget = ["max_tokens", "token_ratio"]
    /// The budget keys of the ratio style (Finagle, Envoy, Gateway API).
    static let ratioBudget = ["retry_percent", "min_retries_per_second", "window"]
    static let rule = ["status", "transport", "condition", "grpc", "methods", "error", "action", "honor_retry_after", "refresh_credentials"]
    static let defaultRule = ["error", "action"]
    static let layer = ["name", "policy", "select"]
    static let layerRequired = ["name", "policy"]

    /// Keys only a policy (not a stack file) has: their presence next to
    /// `stack` means the file mixes the two kinds.
    static let policyOnly = Set(policy).subtracting(stack)
}

/// The named budgets `budget.preset` accepts.
enum BudgetPreset: String, CaseIterable {
    case awsStandard = "aws-standard"
    case awsStandard2026 = "aws-standard-2026"
    case grpc
    case finagle
    case envoy
    case gatewayAPI = "gateway-api"

    /// The ratio budget a ratio preset stands for.
    var ratio: RatioRetryBudget? {
        RetryBudgetConfiguration.ratioPresets.first { $0.name == rawValue }?.budget
    }
}
