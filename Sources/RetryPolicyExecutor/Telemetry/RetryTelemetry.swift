import Logging
import Metrics
import RetryPolicyCore
import RetryPolicyMetricCatalogue

/// Metrics and logs for requests run under a policy, through swift-metrics
/// and swift-log, so that a service's existing backends (Prometheus,
/// StatsD, OpenTelemetry) see them without custom plumbing.
///
/// Names and attributes follow OpenTelemetry's semantic-convention style
/// and gRPC's retry metrics (A96): retries and the time spent waiting
/// between attempts are recorded once per request. Every name, instrument,
/// unit and attribute key comes from `MetricCatalogue`;
/// docs/observability.md lists them. A Prometheus backend writes the dots
/// as underscores.
///
/// An executor without telemetry pays nothing; one whose factory is the
/// no-op factory (nothing bootstrapped) skips creating metric objects.
public struct RetryTelemetry: Sendable {
    public var logger: Logger
    /// `nil` when the factory is swift-metrics' no-op one.
    let factory: (any MetricsFactory)?
    /// The first part of every metric's name (`retry_policy` by default).
    public var labelPrefix: String
    /// The level of the one log line a failed request produces.
    public var failureLogLevel: Logger.Level

    public init(
        logger: Logger = Logger(label: "retry-policy"),
        factory: any MetricsFactory = MetricsSystem.factory,
        labelPrefix: String = MetricCatalogue.prefix,
        failureLogLevel: Logger.Level = .info
    ) {
        self.logger = logger
        self.factory = factory is NOOPMetricsHandler ? nil : factory
        self.labelPrefix = labelPrefix
        self.failureLogLevel = failureLogLevel
    }

    /// Whether metrics are recorded (a backend is bootstrapped or given).
    package var recordsMetrics: Bool { factory != nil }

    @usableFromInline
    func attemptFinished(_ record: AttemptRecord, policy: String, endpoint: String?) {
        let decision = Self.decisionName(record.decision)
        if let factory {
            let endpointName = endpoint ?? "none"
            var status = "none"
            if case .response(let code, _) = record.outcome { status = String(code) }
            increment(MetricCatalogue.attempts, policy, endpointName, decision, Self.errorType(of: record), status)
            Timer(
                label: MetricCatalogue.attemptDuration.name(prefix: labelPrefix),
                dimensions: MetricCatalogue.attemptDuration.dimensions(policy, endpointName, decision),
                preferredDisplayUnit: .seconds,
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
    func waited(_ delay: Duration, cause: WaitReason, policy: String, endpoint: String?) {
        guard let factory else { return }
        Timer(
            label: MetricCatalogue.waits.name(prefix: labelPrefix),
            dimensions: MetricCatalogue.waits.dimensions(policy, endpoint ?? Key.none, cause.rawValue),
            preferredDisplayUnit: .seconds,
            factory: factory
        ).recordNanoseconds(delay.nanosecondsSaturated)
    }

    /// The per-request metrics: attempts, retries (gRPC's
    /// `grpc.client.call.retries`), the time no attempt was in flight
    /// (`grpc.client.call.retry_delay`) and the duration.
    func requestEnded(
        attempts: Int, waited: Duration, elapsed: Duration, failure: RetryFailure?, policy: String, endpoint: String?,
        factory: any MetricsFactory
    ) {
        let outcome = failure == nil ? "success" : "failure"
        let errorType = failure?.error.kind.rawValue ?? Key.none
        let endpoint = endpoint ?? Key.none
        let stopReason = failure?.reason.rawValue ?? Key.none
        let catalogue = MetricCatalogue.self
        Recorder(
            label: catalogue.callAttempts.name(prefix: labelPrefix),
            dimensions: catalogue.callAttempts.dimensions(policy, endpoint, outcome, errorType), aggregate: true,
            factory: factory
        ).record(attempts)
        Recorder(
            label: catalogue.callRetries.name(prefix: labelPrefix),
            dimensions: catalogue.callRetries.dimensions(policy, endpoint, outcome), aggregate: true, factory: factory
        ).record(max(0, attempts - 1))
        Timer(
            label: catalogue.callRetryDelay.name(prefix: labelPrefix),
            dimensions: catalogue.callRetryDelay.dimensions(policy, endpoint, outcome), preferredDisplayUnit: .seconds,
            factory: factory
        ).recordNanoseconds(waited.nanosecondsSaturated)
        Timer(
            label: catalogue.callDuration.name(prefix: labelPrefix),
            dimensions: catalogue.callDuration.dimensions(policy, endpoint, outcome, errorType, stopReason),
            preferredDisplayUnit: .seconds,
            factory: factory
        ).recordNanoseconds(elapsed.nanosecondsSaturated)
    }

    @usableFromInline
    func requestSucceeded(attempts: Int, waited: Duration, elapsed: Duration, policy: String, endpoint: String?) {
        guard let factory else { return }
        requestEnded(
            attempts: attempts, waited: waited, elapsed: elapsed, failure: nil, policy: policy, endpoint: endpoint,
            factory: factory)
    }

    @usableFromInline
    func requestFailed(_ failure: RetryFailure, elapsed: Duration, policy: String, endpoint: String?) {
        let endpointName = endpoint ?? "none"
        if let factory {
            requestEnded(
                attempts: failure.attempts.count, waited: Self.idleTime(of: failure.attempts[...], elapsed: elapsed),
                elapsed: elapsed, failure: failure, policy: policy, endpoint: endpoint, factory: factory)
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

    /// The budget's tokens after a decision that may have spent or refunded
    /// some.
    @usableFromInline
    func budgetChanged(_ budget: RetryBudget?, policy: String) {
        guard let factory, let budget else { return }
        let available = budget.available
        let tokens = budget.configuration.style == .grpc ? Double(available) / 1000 : Double(available)
        Gauge(
            label: MetricCatalogue.budgetTokens.name(prefix: labelPrefix),
            dimensions: MetricCatalogue.budgetTokens.dimensions(policy), factory: factory
        ).record(tokens)
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
            increment(MetricCatalogue.breakerTransitions, policy, transition.state, reason)
            for state in ["closed", "open", "half_open"] {
                Gauge(
                    label: MetricCatalogue.breakerState.name(prefix: labelPrefix),
                    dimensions: MetricCatalogue.breakerState.dimensions(policy, state),
                    factory: factory
                ).record(state == transition.state ? 1 : 0)
            }
        }
        logger.log(level: level, "circuit breaker \(transition.state)", metadata: metadata)
    }

    private typealias Key = MetricCatalogue.Attribute

    /// Adds one to the counter `metric` (under ``labelPrefix``), with its
    /// attributes' `values` in the catalogue's order.
    @usableFromInline
    func increment(_ metric: MetricCatalogue.Metric, _ values: String...) {
        guard let factory else { return }
        Counter(
            label: metric.name(prefix: labelPrefix), dimensions: metric.dimensions(values), factory: factory
        ).increment()
    }

    /// `error.type` of an attempt: the transport class of a failure that
    /// never got a response, the error kind of a response the policy did
    /// not accept; `none` for a success.
    static func errorType(of record: AttemptRecord) -> String {
        if case .success = record.decision.action { return "none" }
        if case .transport(let transport) = record.outcome { return transport.rawValue }
        return record.decision.errorKind?.rawValue ?? outcomeName(record.outcome)
    }

    /// The time within `elapsed` when no attempt was in flight: attempts
    /// of a hedged request overlap, so this is what their union leaves.
    @usableFromInline
    static func idleTime(of attempts: ArraySlice<AttemptRecord>, elapsed: Duration) -> Duration {
        var busy = Duration.zero
        var coveredUntil = Duration.zero
        for record in attempts.sorted(by: { $0.startedAt < $1.startedAt }) {
            let end = record.startedAt + record.duration
            let from = max(record.startedAt, coveredUntil)
            if end > from { busy += end - from }
            coveredUntil = max(coveredUntil, end)
        }
        return max(.zero, elapsed - busy)
    }

    static func decisionName(_ decision: Decision) -> String {
        switch decision.action {
        case .success: "success"
        case .retry: "retry"
        case .stop: "stop"
        }
    }

    /// `503`, or a transport class such as `timeout`.
    static func outcomeName(_ outcome: AttemptOutcome) -> String {
        switch outcome {
        case .response(let status, _): String(status)
        case .transport(let transport): transport.rawValue
        case .condition(let condition): condition.rawValue
        case .grpc(let status, _): status.name
        }
    }
}
