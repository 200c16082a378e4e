import RetryPolicyCore

/// The policies and inputs the decision benchmarks run, built once outside
/// the measured region.
public enum Workload {
    /// A retrying client policy like the TMDb client's (seed 000): 429 and
    /// 5xx retried with full-jitter exponential backoff (1 s, doubling, 30 s
    /// cap), `Retry-After` honoured and clamped to 60 s, connection failures
    /// retried, 4 attempts, a 120 s deadline.
    public static let retrying = Policy(
        name: "tmdb",
        attempts: 4,
        backoff: Backoff(initial: .seconds(1), max: .seconds(30), multiplier: 2, jitter: .full),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), aboveCap: .clamp, combine: .server),
        timeouts: TimeoutBudget(perAttempt: .seconds(10), total: .seconds(120)),
        rules: [
            Rule(statuses: [.code(429)], error: .status429, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(transports: [.timeout], error: .timeout, action: .retry),
            Rule(transports: [.connectionLost, .offline, .dns, .connectionRefused], error: .networkError, action: .retry),
            Rule(statuses: [.code(401)], error: .unauthorized, action: .stop),
            Rule(statuses: [.code(404)], error: .notFound, action: .stop),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop)
    )

    /// Seed 004's single-attempt SDK policy (iOS): no retries, status codes
    /// mapped to SDKError, `Retry-After` kept on the error.
    public static let singleAttempt = Policy(
        name: "sdk-ios",
        platform: "ios",
        attempts: 1,
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(300), aboveCap: .clamp),
        timeouts: TimeoutBudget(perAttempt: .seconds(10), total: .seconds(10)),
        rules: [
            Rule(statuses: [.code(200)], action: .success),
            Rule(statuses: [.code(204)], error: .noFill, action: .stop),
            Rule(statuses: [.code(429)], error: .status429, action: .stop),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .stop),
            Rule(transports: [.timeout], error: .timeout, action: .stop),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop)
    )

    /// 1,000 inputs in the proportions a busy client sees: 85 % 2xx, 5 %
    /// 429 with a delta-seconds `Retry-After` (some above the cap), 5 % 5xx
    /// (some with `Retry-After`), 3 % transport failures, 2 % other 4xx;
    /// mostly first attempts, some retries and some final attempts.
    public static let mix: [DecisionInput] = {
        var generator = SplitMix64(seed: 2024)
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        var inputs: [DecisionInput] = []
        inputs.reserveCapacity(1000)
        for _ in 0..<1000 {
            let roll = Int.random(in: 0..<100, using: &generator)
            let outcome: AttemptOutcome
            switch roll {
            case 0..<80: outcome = .status(200)
            case 80..<83: outcome = .status(201)
            case 83..<85: outcome = .status(204)
            case 85..<90:
                let seconds = [1, 2, 5, 10, 30, 120][Int.random(in: 0..<6, using: &generator)]
                outcome = .response(status: 429, headers: ["Retry-After": "\(seconds)"])
            case 90..<95:
                let status = [500, 502, 503, 504][Int.random(in: 0..<4, using: &generator)]
                outcome = status == 503
                    ? .response(status: 503, headers: ["Content-Type": "text/html", "Retry-After": "7"])
                    : .status(status)
            case 95..<98:
                let failures: [TransportFailure] = [.timeout, .connectionLost, .dns, .offline, .cancelled]
                outcome = .transport(failures[Int.random(in: 0..<failures.count, using: &generator)])
            default:
                outcome = .status([400, 401, 403, 404][Int.random(in: 0..<4, using: &generator)])
            }
            let attemptRoll = Int.random(in: 0..<10, using: &generator)
            let attempt = attemptRoll < 7 ? 1 : attemptRoll < 9 ? 2 : 4
            let method: HTTPMethod = Int.random(in: 0..<10, using: &generator) == 0 ? .post : .get
            inputs.append(
                DecisionInput(
                    outcome: outcome,
                    attempt: attempt,
                    elapsed: .seconds(attempt - 1),
                    method: method,
                    now: now,
                    previousDelay: attempt > 1 ? .seconds(1) : nil
                )
            )
        }
        return inputs
    }()
}
