/// Every metric the package records, with its instrument, unit and
/// attribute keys: the executor, shadow mode, the policy store and the
/// PostgreSQL state store all take their names from here, and a test holds
/// docs/observability.md against this list. A new metric is an entry here
/// plus the call that records it.
///
/// Names follow OpenTelemetry's semantic-convention style: dotted, with
/// `error.type` and `http.response.status_code` where those apply and
/// durations in seconds.
public enum MetricCatalogue {
    /// The first part of every metric's name; an executor's
    /// `RetryTelemetry.labelPrefix` may replace it for its own metrics.
    public static let prefix = "retry_policy"

    /// How a metric is recorded, in swift-metrics' terms.
    public enum Instrument: String, Hashable, Sendable {
        case counter
        case gauge
        /// A `Recorder` that aggregates.
        case histogram
        case timer
    }

    /// One metric.
    public struct Metric: Hashable, Sendable {
        /// The name after the prefix, such as `client.attempts`.
        public let suffix: String
        public let instrument: Instrument
        /// OpenTelemetry's unit notation: `s`, `1`, `{attempt}`; `nil`
        /// when the documentation gives none.
        public let unit: String?
        /// The attribute keys every series of the metric carries, in order.
        public let attributes: [String]

        public init(_ suffix: String, _ instrument: Instrument, unit: String?, attributes: [String]) {
            self.suffix = suffix
            self.instrument = instrument
            self.unit = unit
            self.attributes = attributes
        }

        /// The full name under the package's prefix.
        public var name: String { MetricCatalogue.prefix + "." + suffix }

        /// The full name under another prefix.
        public func name(prefix: String) -> String { prefix + "." + suffix }

        /// The metric's attribute keys paired with `values`, given in the
        /// order of ``attributes``: a call site names values, never keys, so
        /// its series carry exactly the keys listed here.
        public func dimensions(_ values: [String]) -> [(String, String)] {
            assert(values.count == attributes.count, "\(suffix): \(attributes.count) attributes, \(values.count) values")
            return Array(zip(attributes, values))
        }

        /// `dimensions(_:)` with the values listed.
        public func dimensions(_ values: String...) -> [(String, String)] { dimensions(values) }
    }

    /// The attribute keys. An attribute that does not apply to a series
    /// has the value ``none``, so that every series of a metric has the same
    /// keys.
    public enum Attribute {
        public static let policy = "retry_policy.policy"
        public static let endpoint = "retry_policy.endpoint"
        /// `success` or `failure`.
        public static let outcome = "retry_policy.outcome"
        /// `success`, `retry` or `stop`.
        public static let decision = "retry_policy.decision"
        public static let stopReason = "retry_policy.stop_reason"
        /// `backoff`, `server` or `cooldown`.
        public static let waitCause = "retry_policy.wait.cause"
        /// `closed`, `open` or `half_open`.
        public static let breakerState = "retry_policy.breaker.state"
        public static let breakerReason = "retry_policy.breaker.reason"
        public static let errorType = "error.type"
        public static let statusCode = "http.response.status_code"
        public static let storeDirectory = "retry_policy.store.directory"
        public static let shadowPolicy = "retry_policy.shadow.policy"
        /// `complete`, `partial` or `not_compared`.
        public static let shadowCoverage = "retry_policy.shadow.coverage"
        public static let shadowDivergence = "retry_policy.shadow.divergence"

        /// The value of an attribute that does not apply.
        public static let none = "none"
    }

    private typealias A = Attribute

    // MARK: Requests (the executor), once per request

    public static let callAttempts = Metric(
        "client.call.attempts", .histogram, unit: "{attempt}", attributes: [A.policy, A.endpoint, A.outcome, A.errorType])
    /// gRFC A96 `grpc.client.call.retries`.
    public static let callRetries = Metric(
        "client.call.retries", .histogram, unit: "{retry}", attributes: [A.policy, A.endpoint, A.outcome])
    /// gRFC A96 `grpc.client.call.retry_delay`: the time no attempt was in
    /// flight.
    public static let callRetryDelay = Metric(
        "client.call.retry_delay", .timer, unit: "s", attributes: [A.policy, A.endpoint, A.outcome])
    public static let callDuration = Metric(
        "client.call.duration", .timer, unit: "s",
        attributes: [A.policy, A.endpoint, A.outcome, A.errorType, A.stopReason])

    // MARK: Attempts and waits (the executor)

    public static let attempts = Metric(
        "client.attempts", .counter, unit: "{attempt}",
        attributes: [A.policy, A.endpoint, A.decision, A.errorType, A.statusCode])
    public static let attemptDuration = Metric(
        "client.attempt.duration", .timer, unit: "s", attributes: [A.policy, A.endpoint, A.decision])
    public static let waits = Metric("client.waits", .timer, unit: "s", attributes: [A.policy, A.endpoint, A.waitCause])

    // MARK: Shared state (the executor)

    public static let budgetTokens = Metric("budget.tokens", .gauge, unit: "{token}", attributes: [A.policy])
    public static let breakerState = Metric("breaker.state", .gauge, unit: "1", attributes: [A.policy, A.breakerState])
    public static let breakerTransitions = Metric(
        "breaker.transitions", .counter, unit: "{transition}", attributes: [A.policy, A.breakerState, A.breakerReason])

    // MARK: Shadow mode

    public static let shadowRequests = Metric(
        "shadow.requests", .counter, unit: nil, attributes: [A.policy, A.shadowPolicy, A.shadowCoverage])
    public static let shadowDivergences = Metric(
        "shadow.divergences", .counter, unit: nil, attributes: [A.policy, A.shadowPolicy, A.shadowDivergence])

    // MARK: The policy store

    public static let storeGeneration = Metric("store.generation", .gauge, unit: "1", attributes: [A.storeDirectory])
    public static let storePolicies = Metric("store.policies", .gauge, unit: "{policy}", attributes: [A.storeDirectory])
    public static let storeProblemFiles = Metric(
        "store.problem_files", .gauge, unit: "{file}", attributes: [A.storeDirectory])
    public static let storePendingRemovals = Metric(
        "store.pending_removals", .gauge, unit: "{policy}", attributes: [A.storeDirectory])
    public static let storeLastReload = Metric(
        "store.last_reload.timestamp", .gauge, unit: "s", attributes: [A.storeDirectory])
    public static let storeLastChange = Metric(
        "store.last_change.timestamp", .gauge, unit: "s", attributes: [A.storeDirectory])
    public static let storeStaleSince = Metric(
        "store.stale_since.timestamp", .gauge, unit: "s", attributes: [A.storeDirectory])
    public static let storeWatching = Metric("store.watching", .gauge, unit: "1", attributes: [A.storeDirectory])

    // MARK: The PostgreSQL state store

    public static let stateFallbacks = Metric("state.fallbacks", .counter, unit: "{fallback}", attributes: [])
    public static let stateReconnections = Metric("state.reconnections", .counter, unit: "{reconnection}", attributes: [])
    public static let stateRoundTrips = Metric("state.round_trips", .counter, unit: "{round_trip}", attributes: [])

    /// Every metric above.
    public static let all: [Metric] = [
        callAttempts, callRetries, callRetryDelay, callDuration, attempts, attemptDuration, waits, budgetTokens,
        breakerState, breakerTransitions, shadowRequests, shadowDivergences, storeGeneration, storePolicies,
        storeProblemFiles, storePendingRemovals, storeLastReload, storeLastChange, storeStaleSince, storeWatching,
        stateFallbacks, stateReconnections, stateRoundTrips,
    ]
}
