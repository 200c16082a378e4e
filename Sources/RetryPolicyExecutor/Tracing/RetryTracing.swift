import Instrumentation
import Tracing

/// How an executor traces its requests through swift-distributed-tracing:
/// one span per request (kind `internal`) and one `client` span per
/// attempt, following OpenTelemetry's HTTP semantic conventions, with an
/// event on the request span for every decision. docs/observability.md
/// lists every span, attribute and event.
///
/// The library depends on the tracing API only; which backend receives the
/// spans is the application's choice (`InstrumentationSystem.bootstrap`,
/// for example with swift-otel).
public struct RetryTracing: Sendable {
    /// Receives the spans.
    public var tracer: any Tracer
    /// Whether each attempt gets a `client` span of its own. Off when the
    /// operation's HTTP client makes that span itself (as AsyncHTTPClient
    /// does when it has a tracer): its span then nests directly under the
    /// request span, and two client spans for one HTTP request are avoided.
    public var attemptSpans: Bool

    public init(tracer: any Tracer, attemptSpans: Bool = true) {
        self.tracer = tracer
        self.attemptSpans = attemptSpans
    }

    /// The tracer bootstrapped in `InstrumentationSystem`, or `nil` when
    /// none is (the no-op tracer): an executor without tracing pays
    /// nothing for it. Read when the executor is made, as swift-log and
    /// swift-metrics handlers are, so bootstrap before making executors.
    public static var bootstrapped: RetryTracing? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : RetryTracing(tracer: tracer)
    }
}

extension RetryTracing {
    /// The address of the request about to run, when the caller knows it:
    /// its spans record it as `url.full` and `server.address` (without the
    /// user name, password or signed query values it may hold). Read only
    /// when the executor traces; the policy never reads it. The HTTP
    /// adapters set it; code calling `run` sets it around the call:
    ///
    /// ```swift
    /// try await RetryTracing.$requestURL.withValue(url.absoluteString) {
    ///     try await executor.run(request) { ... }
    /// }
    /// ```
    @TaskLocal public static var requestURL: String?
}
