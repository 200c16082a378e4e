import Instrumentation
import RetryPolicyCore
import Tracing

/// The executor's side of tracing. The request's ``RequestTrace`` travels
/// in the service context the request loop runs in; every function here
/// is called only when the executor traces (`setup.isTraced`), out of
/// line, so a request without tracing neither looks it up nor carries its
/// code.
extension RetryExecutor {
    /// The service context a traced request runs in: its request span's,
    /// with the trace itself attached; `nil` when the executor does not
    /// trace.
    @usableFromInline @inline(never)
    func traceContext(for request: RetryRequest, start: C.Instant) -> ServiceContext? {
        guard let tracing = setup.fields.tracing else { return nil }
        let parent = ServiceContext.current ?? .topLevel
        let trace = RequestTrace(
            tracing: tracing, request: request, policy: decider.policy.name, at: wallClock.timestamp(at: start),
            parent: parent)
        var context = trace.span.context
        context[RequestTraceKey.self] = trace
        return context
    }

    /// The current request's trace.
    var currentTrace: RequestTrace? { ServiceContext.current?[RequestTraceKey.self] }

    /// Starts an attempt's span; the context the attempt's operation runs
    /// in, so that its client's spans nest under the attempt.
    @usableFromInline @inline(never)
    func traceAttemptStarted(_ number: Int, at instant: C.Instant, hedge: Bool) -> ServiceContext? {
        guard let trace = currentTrace else { return nil }
        let time = wallClock.timestamp(at: instant)
        if hedge { trace.hedgeStarted(number, at: time) }
        return trace.startAttempt(number, at: time)
    }

    /// Ends the spans of judged attempts and records their decisions.
    @usableFromInline @inline(never)
    func traceRecords(_ records: ArraySlice<AttemptRecord>, start: C.Instant) {
        guard let trace = currentTrace else { return }
        for record in records {
            let end = start.advanced(by: record.startedAt + record.duration)
            trace.attemptFinished(record, at: wallClock.timestamp(at: end))
        }
    }

    @usableFromInline @inline(never)
    func traceWaiting(_ delay: Duration, reason: WaitReason, at instant: C.Instant) {
        currentTrace?.waited(delay, cause: reason, at: wallClock.timestamp(at: instant))
    }

    @usableFromInline @inline(never)
    func traceBreaker(_ transition: CircuitBreakerTransition) {
        currentTrace?.breakerChanged(transition, at: wallClock.timestamp(at: clock.now))
    }

    @usableFromInline @inline(never)
    func traceSucceeded(attempts: Int, at instant: C.Instant) {
        currentTrace?.succeeded(attempts: attempts, at: wallClock.timestamp(at: instant))
    }

    @usableFromInline @inline(never)
    func traceFailed(_ failure: RetryFailure, machine: RequestStateMachine?, at instant: C.Instant) {
        currentTrace?.failed(
            failure, rejection: machine?.rejection, at: wallClock.timestamp(at: instant))
    }

    /// Runs `body`, the request's loop, inside its request span when the
    /// executor traces.
    @inlinable
    func withRequestSpan<Value>(
        _ request: RetryRequest,
        start: C.Instant,
        isolation: isolated (any Actor)?,
        _ body: () async throws(RetryFailure) -> Value
    ) async throws(RetryFailure) -> Value {
        guard setup.isTraced, let context = traceContext(for: request, start: start) else { return try await body() }
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
        at instant: C.Instant,
        isolation: isolated (any Actor)?,
        attempt: nonisolated(nonsending) (AttemptContext, _ startedAt: C.Instant?) async -> AttemptResult<Value>
    ) async -> AttemptResult<Value> {
        guard let context = traceAttemptStarted(number, at: instant, hedge: false) else {
            return await attempt(attemptContext, instant)
        }
        return await ServiceContext.withValue(context, isolation: isolation) { await attempt(attemptContext, instant) }
    }
}
