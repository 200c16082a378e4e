import Logging
import Metrics
import RetryPolicyCore

/// A candidate policy that runs beside the live one without acting: after
/// every request, its own decider is shown the attempts the live policy
/// made, with their outcomes and times, and every point where it would
/// have decided differently is reported as a ``ShadowDivergence`` (to the
/// observer, as a metric and as a log line).
///
/// The candidate keeps its own budget, breaker and cooldown, spent and
/// opened by what it would have done. It sees only the responses to
/// attempts the live policy sent: where it would have retried a request
/// the live policy stopped, or sent an attempt at another time, the
/// comparison of that request ends there, because the answer it would have
/// got was never observed. docs/observability.md has what it can and
/// cannot tell.
public struct ShadowPolicy: Sendable {
    /// The candidate's decider: made from the candidate policy, never the
    /// live decider (whose budget and breaker the live requests spend).
    public var decider: RetryDecider
    /// Receives every divergence, on the task that ran the request.
    public var observer: (@Sendable (ShadowDivergence) -> Void)?
    public var logger: Logger
    /// `nil` when the factory is swift-metrics' no-op one.
    let factory: (any MetricsFactory)?

    public init(
        decider: RetryDecider,
        observer: (@Sendable (ShadowDivergence) -> Void)? = nil,
        logger: Logger = Logger(label: "retry-policy.shadow"),
        factory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.decider = decider
        self.observer = observer
        self.logger = logger
        self.factory = factory is NOOPMetricsHandler ? nil : factory
    }

    /// A shadow of `policy`, with a decider of its own.
    public init(
        policy: Policy,
        observer: (@Sendable (ShadowDivergence) -> Void)? = nil,
        logger: Logger = Logger(label: "retry-policy.shadow"),
        factory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.init(decider: RetryDecider(policy: policy), observer: observer, logger: logger, factory: factory)
    }
}
