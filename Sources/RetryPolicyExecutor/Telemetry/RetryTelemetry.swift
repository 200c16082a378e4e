import Logging
import Metrics
import RetryPolicyCore

/// Metrics and logs for requests run under a policy, through swift-metrics
/// and swift-log, so that a service's existing backends (Prometheus,
/// StatsD, OpenTelemetry) see them without custom plumbing.
///
/// Every metric carries the dimensions the seed SDK's telemetry lists:
/// the policy, the endpoint (placement), the error kind, and the HTTP
/// status or transport class; durations are timers.
///
/// | metric | kind | dimensions |
/// |---|---|---|
/// | `retry_policy_attempts` | counter | policy, endpoint, decision (`success`/`retry`/`stop`), error, outcome (status or transport class) |
/// | `retry_policy_attempt_duration` | timer | policy, endpoint, decision |
/// | `retry_policy_waits` | timer | policy, endpoint, cause (`backoff`/`server`/`cooldown`) |
/// | `retry_policy_requests` | counter | policy, endpoint, result (`success`/`failure`), error, reason |
/// | `retry_policy_request_duration` | timer | policy, endpoint, result |
/// | `retry_policy_breaker_transitions` | counter | policy, state (`open`/`half_open`/`closed`), reason |
/// | `retry_policy_breaker_open` | gauge | policy (1 while open or half-open, 0 once closed) |
///
/// An executor without telemetry pays nothing; one whose factory is the
/// no-op factory (nothing bootstrapped) skips creating metric objects.
public struct RetryTelemetry: Sendable {
    public var logger: Logger
    /// `nil` when the factory is swift-metrics' no-op one.
    let factory: (any MetricsFactory)?
    /// Prepended to every metric label.
    public var labelPrefix: String
    /// The level of the one log line a failed request produces.
    public var failureLogLevel: Logger.Level

    public init(
        logger: Logger = Logger(label: "retry-policy"),
        factory: any MetricsFactory = MetricsSystem.factory,
        labelPrefix: String = "retry_policy",
        failureLogLevel: Logger.Level = .info
    ) {
        self.logger = logger
        self.factory = factory is NOOPMetricsHandler ? nil : factory
        self.labelPrefix = labelPrefix
        self.failureLogLevel = failureLogLevel
    }

    /// Whether metrics are recorded (a backend is bootstrapped or given).
    public var recordsMetrics: Bool { factory != nil }

    @usableFromInline
    func attemptFinished(_ record: AttemptRecord, policy: String, endpoint: String?) {
        let decision = Self.decisionName(record.decision)
        let error = record.decision.error?.kind.rawValue ?? Self.retryErrorName(record.decision, policy: nil)
        if let factory {
            let endpointName = endpoint ?? "none"
            Counter(
                label: labelPrefix + "_attempts",
                dimensions: [
                    ("policy", policy), ("endpoint", endpointName), ("decision", decision),
                    ("error", error), ("outcome", Self.outcomeName(record.outcome)),
                ],
                factory: factory
            ).increment()
            Timer(
                label: labelPrefix + "_attempt_duration",
                dimensions: [("policy", policy), ("endpoint", endpointName), ("decision", decision)],
                factory: factory
            ).recordNanoseconds(record.duration.nanosecondsSaturated)
        }
        logger.debug(
            "attempt finished",
            metadata: [
                "retry.policy": "\(policy)",
                "retry.endpoint": "\(endpoint ?? "none")",
                "retry.attempt": "\(record.number)",
                "retry.outcome": "\(Self.outcomeName(record.outcome))",
                "retry.decision": "\(decision)",
                "retry.delay": "\(record.decision.delay.map(\.formattedForHumans) ?? "none")",
                "retry.duration": "\(record.duration.formattedForHumans)",
            ])
    }

    @usableFromInline
    func waited(_ delay: Duration, cause: RetryEvent.WaitCause, policy: String, endpoint: String?) {
        guard let factory else { return }
        Timer(
            label: labelPrefix + "_waits",
            dimensions: [("policy", policy), ("endpoint", endpoint ?? "none"), ("cause", cause.rawValue)],
            factory: factory
        ).recordNanoseconds(delay.nanosecondsSaturated)
    }

    @usableFromInline
    func requestSucceeded(attempts: Int, elapsed: Duration, policy: String, endpoint: String?) {
        guard let factory else { return }
        let endpointName = endpoint ?? "none"
        Counter(
            label: labelPrefix + "_requests",
            dimensions: [
                ("policy", policy), ("endpoint", endpointName), ("result", "success"), ("error", "none"),
                ("reason", "none"),
            ],
            factory: factory
        ).increment()
        Timer(
            label: labelPrefix + "_request_duration",
            dimensions: [("policy", policy), ("endpoint", endpointName), ("result", "success")],
            factory: factory
        ).recordNanoseconds(elapsed.nanosecondsSaturated)
    }

    @usableFromInline
    func requestFailed(_ failure: RetryFailure, elapsed: Duration, policy: String, endpoint: String?) {
        let endpointName = endpoint ?? "none"
        if let factory {
            Counter(
                label: labelPrefix + "_requests",
                dimensions: [
                    ("policy", policy), ("endpoint", endpointName), ("result", "failure"),
                    ("error", failure.error.kind.rawValue), ("reason", failure.reason.rawValue),
                ],
                factory: factory
            ).increment()
            Timer(
                label: labelPrefix + "_request_duration",
                dimensions: [("policy", policy), ("endpoint", endpointName), ("result", "failure")],
                factory: factory
            ).recordNanoseconds(elapsed.nanosecondsSaturated)
        }
        logger.log(
            level: failureLogLevel,
            "request failed under retry policy",
            metadata: [
                "retry.policy": "\(policy)",
                "retry.endpoint": "\(endpointName)",
                "retry.error": "\(failure.error.kind.rawValue)",
                "retry.status": "\(failure.error.statusCode.map(String.init) ?? "none")",
                "retry.transport": "\(failure.error.transport?.rawValue ?? "none")",
                "retry.reason": "\(failure.reason.rawValue)",
                "retry.attempts": "\(failure.attempts.count)",
                "retry.duration": "\(elapsed.formattedForHumans)",
                "retry.message": "\(failure.error.message)",
            ])
    }

    @usableFromInline
    func breakerChanged(_ transition: CircuitBreakerTransition, policy: String, endpoint: String?) {
        var reason = "none"
        var level = Logger.Level.info
        var metadata: Logger.Metadata = [
            "retry.policy": "\(policy)",
            "retry.endpoint": "\(endpoint ?? "none")",
            "retry.breaker.state": "\(transition.state)",
        ]
        if case .opened(let until, let length, let why) = transition {
            reason = why.rawValue
            level = .warning
            metadata["retry.breaker.reason"] = "\(why.rawValue)"
            metadata["retry.breaker.break"] = "\(length.formattedForHumans)"
            metadata["retry.breaker.until"] = "\(until)"
        }
        if let factory {
            Counter(
                label: labelPrefix + "_breaker_transitions",
                dimensions: [("policy", policy), ("state", transition.state), ("reason", reason)],
                factory: factory
            ).increment()
            Gauge(label: labelPrefix + "_breaker_open", dimensions: [("policy", policy)], factory: factory)
                .record(transition == .closed ? 0 : 1)
        }
        logger.log(level: level, "circuit breaker \(transition.state)", metadata: metadata)
    }

    static func decisionName(_ decision: Decision) -> String {
        switch decision.action {
        case .success: "success"
        case .retry: "retry"
        case .stop: "stop"
        }
    }

    static func retryErrorName(_ decision: Decision, policy: Policy?) -> String {
        decision.isRetry ? "retryable" : "none"
    }

    /// `503`, or a transport class such as `timeout`.
    static func outcomeName(_ outcome: AttemptOutcome) -> String {
        switch outcome {
        case .response(let status, _): String(status)
        case .transport(let transport): transport.rawValue
        case .condition(let condition): condition.rawValue
        }
    }
}
