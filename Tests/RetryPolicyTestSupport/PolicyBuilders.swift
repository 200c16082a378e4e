import RetryPolicyCore

/// A location on `line` of the test policy file.
public func at(_ line: Int, column: Int = 3) -> SourceLocation {
    SourceLocation(file: "policy.yaml", line: line, column: column)
}

/// A rule written on `line`.
public func rule(
    _ statuses: [StatusPattern] = [], transports: Set<TransportFailure> = [], methods: Set<HTTPMethod>? = nil,
    error: SDKError.Kind = .status5xx, action: Rule.Action, honorRetryAfter: Bool? = nil,
    refresh: Bool = false, line: Int
) -> Rule {
    Rule(statuses: statuses, transports: transports, methods: methods, error: error, action: action,
         honorRetryAfter: honorRetryAfter, refreshCredentials: refresh, location: at(line))
}

/// A well-formed retrying policy that no rule complains about: the baseline
/// each test changes one thing in.
public func cleanPolicy() -> Policy {
    Policy(
        name: "clean",
        attempts: 3,
        backoff: Backoff(initial: .seconds(1), max: .seconds(10), multiplier: 2, jitter: .full, location: at(5)),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), location: at(10)),
        timeouts: TimeoutBudget(perAttempt: .seconds(5), total: .seconds(30), location: at(15)),
        idempotency: Idempotency(isExplicit: true, location: at(18)),
        rules: [
            rule([.code(429)], error: .status429, action: .retry, line: 21),
            rule([.code(501)], action: .stop, line: 22),
            rule([.statusClass(5)], action: .retry, line: 23),
            rule(transports: [.timeout, .connectionLost], error: .timeout, action: .retry, line: 24),
            rule([.statusClass(4)], error: .networkError, action: .stop, line: 25),
        ],
        defaultRule: DefaultRule(error: .networkError, action: .stop, location: at(28)),
        location: at(1, column: 1))
    .withBreaker(CircuitBreakerConfiguration(location: at(30)))
}

extension Policy {
    public func withBreaker(_ breaker: CircuitBreakerConfiguration?) -> Policy {
        var copy = self
        copy.breaker = breaker
        return copy
    }
}
