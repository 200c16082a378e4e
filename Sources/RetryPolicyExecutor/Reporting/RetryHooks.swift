/// Everything an executor reports its requests to: the observer's events,
/// metrics and logs, spans, and a shadow policy's comparison. Each is
/// optional, and an executor with none of them reports nothing and pays
/// nothing for it.
///
/// The executor turns each of its events into all four in one place, so
/// that they always agree on what happened.
public struct RetryHooks: Sendable {
    /// Receives every event of every request.
    public var observer: RetryObserver?
    /// Metrics and logs.
    public var telemetry: RetryTelemetry?
    /// Spans for every request and attempt.
    public var tracing: RetryTracing?
    /// A candidate policy shown every request's attempts after the
    /// request, to report where it would have decided differently; it never
    /// acts.
    public var shadow: ShadowPolicy?

    /// - Parameters:
    ///   - observer: receives every event of every request.
    ///   - telemetry: metrics and logs.
    ///   - tracing: by default the tracer bootstrapped in
    ///     `InstrumentationSystem`, and `nil` (costing nothing) when none is.
    ///   - shadow: a candidate policy compared after every request.
    public init(
        observer: RetryObserver? = nil,
        telemetry: RetryTelemetry? = nil,
        tracing: RetryTracing? = .bootstrapped,
        shadow: ShadowPolicy? = nil
    ) {
        self.observer = observer
        self.telemetry = telemetry
        self.tracing = tracing
        self.shadow = shadow
    }

    /// No hook is set: a request has nothing to report.
    package var isEmpty: Bool { observer == nil && telemetry == nil && tracing == nil && shadow == nil }
}
