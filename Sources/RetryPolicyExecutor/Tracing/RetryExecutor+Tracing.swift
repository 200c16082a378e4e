import Instrumentation
import RetryPolicyCore
import Tracing

/// The executor's side of tracing: the service contexts a request and its
/// attempts run in. The request's `RequestTrace` travels in the request's
/// service context; what is recorded on it is reported from the executor's
/// one fan-out (`RetryExecutor+Reporting.swift`). Every function here is
/// called only when the executor traces (`setup.isTraced`), out of line, so
/// a request without tracing neither looks it up nor carries its code.
extension RetryExecutor {
    /// The service context a traced request runs in: its request span's,
    /// with the trace itself attached; `nil` when the executor does not
    /// trace.
    @usableFromInline @inline(never)
    func traceContext(for request: RetryRequest, start: Duration) -> ServiceContext? {
        guard let tracing = setup.fields.hooks.tracing else { return nil }
        let parent = ServiceContext.current ?? .topLevel
        let trace = RequestTrace(
            tracing: tracing, request: request, policy: decider.policy.name, at: wallTime(at: start),
            parent: parent)
        var context = trace.span.context
        context[RequestTraceKey.self] = trace
        return context
    }

    /// The current request's trace.
    var currentTrace: RequestTrace? { ServiceContext.current?[RequestTraceKey.self] }

    /// Runs `body`, the request's loop, inside its request span when the
    /// executor traces.
    @inlinable
    func withRequestSpan<Value>(
        _ request: RetryRequest,
        start: Duration?,
        isolation: isolated (any Actor)?,
        _ body: () async throws(RetryFailure) -> Value
    ) async throws(RetryFailure) -> Value {
        guard setup.isTraced, let start, let context = traceContext(for: request, start: start) else {
            return try await body()
        }
        let outcome: Result<Value, RetryFailure> = await ServiceContext.withValue(context, isolation: isolation) {
            do throws(RetryFailure) { return .success(try await body()) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// Runs one attempt inside its span. Out of line: the retry loop of a
    /// request without tracing must not carry its frame.
    @inlinable @inline(never)
    func tracedAttempt<Value>(
        _ number: Int,
        context attemptContext: AttemptContext,
        at instant: Duration?,
        isolation: isolated (any Actor)?,
        attempt: nonisolated(nonsending) (AttemptContext, _ startedAt: Duration?) async -> AttemptResult<Value>
    ) async -> AttemptResult<Value> {
        guard let start = instant, let context = startAttemptSpan(number, at: start, hedge: false) else {
            return await attempt(attemptContext, instant)
        }
        return await ServiceContext.withValue(context, isolation: isolation) { await attempt(attemptContext, instant) }
    }
}
