import RetryPolicyCore

/// The seed documents' policies, built in code, so the engine's rules are
/// tested independently of the YAML loader.
enum SeedPolicies {
    /// Seed 004: single attempt, status table, Retry-After respected as a
    /// cooldown, 10 s timeout budget per placement.
    static func mobileSDK(platform: String = "ios", cooldown: RetryAfterPolicy.Cooldown = .reject) -> Policy {
        Policy(
            name: "\(platform)-sdk",
            platform: platform,
            attempts: 1,
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(300), cooldown: cooldown),
            timeouts: TimeoutBudget(perAttempt: .seconds(10), total: .seconds(10)),
            endpoints: ["main_banner": TimeoutBudget(perAttempt: .seconds(5), total: .seconds(5))],
            rules: [
                Rule(statuses: [.code(204)], error: .noFill, action: .stop),
                Rule(statuses: [.code(400), .code(401)], error: .networkError, action: .stop),
                Rule(statuses: [.code(429)], error: .status429, action: .stop),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .stop),
                Rule(transports: [.timeout], error: .timeout, action: .stop),
                Rule(transports: [.dns, .tls, .offline, .connectionRefused, .connectionLost], error: .networkError, action: .stop),
                Rule(transports: [.cancelled], error: .cancelled, action: .stop),
            ],
            defaultRule: DefaultRule(error: .networkError, action: .stop)
        )
    }

    /// Seed 000: TMDb, 3 retries after the first try, 1 s initial, 30 s
    /// cap, full jitter, Retry-After honoured.
    static let tmdb = Policy(
        name: "tmdb",
        attempts: 4,
        backoff: Backoff(initial: .seconds(1), max: .seconds(30), multiplier: 2, jitter: .full),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(120)),
        rules: [
            Rule(statuses: [.code(429)], error: .status429, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop)
    )

    /// Seed 001: retries timeouts, lost/no connection and 5xx, 3 retries
    /// with delays 0.5, 1, 2 s, 5 s cap, POST not retried.
    static let mobileClient = Policy(
        name: "mobile-client",
        attempts: 4,
        backoff: Backoff(initial: .milliseconds(500), max: .seconds(5), multiplier: 2, jitter: .none),
        idempotency: Idempotency(retryableMethods: [.get, .head, .put, .delete, .options], isExplicit: true),
        rules: [
            Rule(transports: [.timeout, .connectionLost, .offline], error: .networkError, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(statuses: [.code(401), .code(403)], error: .unauthorized, action: .stop),
            Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            Rule(statuses: [.statusClass(4)], error: .networkError, action: .stop),
            Rule(transports: [.cancelled], error: .cancelled, action: .stop),
            Rule(transports: [.decoding], error: .decodingFailed, action: .stop),
            Rule(transports: [.invalidURL], error: .internalError, action: .stop),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop)
    )
}

/// A decider with a fixed seed, so tests are reproducible.
func decide(
    _ policy: Policy,
    _ outcome: AttemptOutcome,
    attempt: Int = 1,
    elapsed: Duration = .zero,
    method: HTTPMethod = .get,
    now: Timestamp? = nil,
    seed: UInt64 = 42
) -> Decision {
    var generator = SplitMix64(seed: seed)
    return RetryDecider(policy: policy).decide(
        DecisionInput(outcome: outcome, attempt: attempt, elapsed: elapsed, method: method, now: now),
        using: &generator)
}

extension AttemptOutcome {
    static func status(_ status: Int, retryAfter: String) -> AttemptOutcome {
        .response(status: status, headers: ["Retry-After": retryAfter])
    }
}
