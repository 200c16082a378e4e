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

    /// Seed 004 (mobile SDK), its "Error Taxonomy Mapping" table: a single
    /// attempt; 204 no fill; 400 and 401 network errors; 429 `status_429`
    /// with Retry-After respected (capped at 60 s, a cooldown while it
    /// runs); 5xx `status_5xx`; a timeout after the placement's budget,
    /// 10 s by default and 5 s for `main_banner`; every other status a
    /// network error. The same table for iOS and Android (its "Parity
    /// Status").
    public static func mobileSDK(platform: String = "ios", cooldown: RetryAfterPolicy.Cooldown = .reject) -> Policy {
        Policy(
            name: "\(platform)-sdk",
            platform: platform,
            attempts: 1,
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), cooldown: cooldown),
            timeouts: TimeoutBudget(perAttempt: .seconds(10), total: .seconds(10)),
            endpoints: ["main_banner": TimeoutBudget(perAttempt: .seconds(5), total: .seconds(5))],
            rules: [
                Rule(statuses: [.code(204)], error: .noFill, action: .stop),
                Rule(statuses: [.code(400), .code(401)], error: .networkError, action: .stop),
                Rule(statuses: [.code(429)], error: .status429, action: .stop),
                Rule(statuses: [.statusClass(5)], error: .status5xx, action: .stop),
                Rule(transports: [.timeout], error: .timeout, action: .stop),
                Rule(transports: [.dns, .tls, .offline, .connectionRefused, .connectionLost, .invalidURL], error: .networkError, action: .stop),
                Rule(transports: [.cancelled], error: .cancelled, action: .stop),
                Rule(transports: [.decoding], error: .decodingFailed, action: .stop),
                Rule(transports: [.unknown], error: .internalError, action: .stop),
            ],
            defaultRule: DefaultRule(error: .networkError, action: .stop)
        )
    }

    /// Seed 001 (app networking default): timeouts, lost and missing
    /// connections and 5xx retried; 3 retries waiting 0.5, 1 and 2 s, 5 s
    /// cap; only idempotent methods retried (POST is not).
    public static let mobileClient = Policy(
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
