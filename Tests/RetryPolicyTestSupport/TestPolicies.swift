import RetryPolicyCore

/// Policies built in code, with the numbers of the seed documents.
public enum TestPolicies {
    /// Seed 000 (TMDb): 429 and 5xx retried, 3 retries (4 attempts), 1 s
    /// initial, 30 s cap, Retry-After honoured.
    public static func tmdb(jitter: Backoff.Jitter = .full, total: Duration? = nil) -> Policy {
        Policy(
            name: "tmdb",
            attempts: 4,
            backoff: Backoff(initial: .seconds(1), max: .seconds(30), multiplier: 2, jitter: jitter),
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60)),
            timeouts: TimeoutBudget(total: total),
            rules: [
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
                Rule(statuses: [.statusClass(4)], error: .networkError, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop)
        )
    }

    /// Seed 004: a single attempt, status codes mapped to SDKError kinds,
    /// a 10 s timeout budget per placement (5 s for `main_banner`).
    public static func mobileSDK(cooldown: RetryAfterPolicy.Cooldown = .off) -> Policy {
        Policy(
            name: "ios-sdk",
            platform: "ios",
            attempts: 1,
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), cooldown: cooldown),
            timeouts: TimeoutBudget(perAttempt: .seconds(10), total: .seconds(10)),
            endpoints: ["main_banner": TimeoutBudget(perAttempt: .seconds(5), total: .seconds(5))],
            rules: [
                Rule(statuses: [.code(204)], error: .noFill, action: .stop),
                Rule(statuses: [.code(400)], error: .invalidPlacement, action: .stop),
                Rule(statuses: [.code(429)], error: .status429, action: .stop),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .stop),
                Rule(statuses: [.statusClass(4)], error: .networkError, action: .stop),
                Rule(transports: [.timeout], error: .timeout, action: .stop),
                Rule(transports: [.dns, .tls, .connectionRefused, .connectionLost, .offline], error: .networkError, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop)
        )
    }

    /// Seed 001: timeouts, lost connections and 5xx retried, 3 attempts,
    /// 0.5 s base, 5 s cap; seed 002's 401 refresh-then-retry-once.
    public static func appClient(perAttempt: Duration? = nil, total: Duration? = nil) -> Policy {
        Policy(
            name: "app-client",
            attempts: 3,
            backoff: Backoff(initial: .milliseconds(500), max: .seconds(5), multiplier: 2, jitter: .none),
            timeouts: TimeoutBudget(perAttempt: perAttempt, total: total),
            rules: [
                Rule(statuses: [.code(401)], error: .unauthorized, action: .retry, refreshCredentials: true),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
                Rule(transports: [.timeout, .connectionLost, .offline], error: .networkError, action: .retry),
                Rule(transports: [.decoding], error: .decodingFailed, action: .stop),
                Rule(statuses: [.statusClass(4)], error: .networkError, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop)
        )
    }
}

extension TestPolicies {
    /// The cap every hostile Retry-After test holds waits to.
    public static let hostileCap = Duration.seconds(60)
    /// The backoff ceiling of ``hostile(attempts:statuses:aboveCap:combine:)``.
    public static let hostileBackoffMax = Duration.seconds(30)

    /// A policy that honours every server-delay header format, capped at
    /// ``hostileCap``, for feeding hostile values to the decider and the
    /// executor alike.
    public static func hostile(
        attempts: Int, statuses: [Int], aboveCap: RetryAfterPolicy.AboveCap, combine: RetryAfterPolicy.Combine
    ) -> Policy {
        Policy(
            name: "hostile",
            attempts: attempts,
            backoff: Backoff(initial: .seconds(1), max: hostileBackoffMax, jitter: .full),
            retryAfter: RetryAfterPolicy(
                honor: true, cap: hostileCap, aboveCap: aboveCap, combine: combine,
                headers: [.retryAfter, .init(name: "retry-after-ms", format: .milliseconds),
                          .init(name: "X-RateLimit-Reset", format: .unixSeconds)],
                cooldown: .wait),
            rules: [Rule(statuses: statuses.map(StatusPattern.code), error: .status429, action: .retry)]
        )
    }
}
