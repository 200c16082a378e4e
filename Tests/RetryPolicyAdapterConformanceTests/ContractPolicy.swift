#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import RetryPolicyCore

/// The policy the contract is stated in: 429, 5xx, timeouts and lost
/// connections retried after 1, 2, 4 s (no jitter, so every wait is
/// exact); 401, 404 and other 4xx stopped, each with its kind; other
/// transport failures stopped as network errors; the server's delay
/// honoured up to 10 s. Each case changes what it is about.
///
/// One policy serves HTTP and gRPC: each rule names its HTTP statuses and
/// the gRPC codes `GRPCScript` maps them to (`RESOURCE_EXHAUSTED` beside
/// 429, `UNAVAILABLE` beside 5xx, `UNAUTHENTICATED` beside 401,
/// `NOT_FOUND` beside 404, `INVALID_ARGUMENT` beside the other 4xx). The
/// decider matches a gRPC outcome by a rule's `grpc` codes only and an
/// HTTP response by its `statuses` only, so neither protocol sees the
/// other's half; the gRPC adapter runs this very policy, unmapped.
enum ContractPolicy {
    static let retryAfterCap = Duration.seconds(10)

    static func standard(
        attempts: Int = 3,
        perAttempt: Duration? = nil,
        retryableMethods: Set<HTTPMethod> = HTTPMethod.defaultRetryable,
        budget: RetryBudgetConfiguration? = nil
    ) -> Policy {
        Policy(
            name: "contract",
            attempts: attempts,
            backoff: Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: true, cap: retryAfterCap, aboveCap: .stop),
            timeouts: TimeoutBudget(perAttempt: perAttempt),
            idempotency: Idempotency(retryableMethods: retryableMethods),
            budget: budget,
            rules: [
                Rule(statuses: [.code(429)], grpc: [.resourceExhausted], error: .status429, action: .retry),
                Rule(statuses: [.statusClass(5)], grpc: [.unavailable], error: .status5xx, action: .retry),
                Rule(statuses: [.code(401)], grpc: [.unauthenticated], error: .unauthorized, action: .stop),
                Rule(statuses: [.code(404)], grpc: [.notFound], error: .notFound, action: .stop),
                Rule(statuses: [.statusClass(4)], grpc: [.invalidArgument], error: .networkError, action: .stop),
                Rule(transports: [.timeout], error: .timeout, action: .retry),
                Rule(transports: [.connectionLost], error: .networkError, action: .retry),
                Rule(transports: [.connectionRefused, .dns, .tls, .offline, .invalidURL], error: .networkError, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
    }
}
#endif
