import Instrumentation
import RetryPolicyCore
import Tracing

/// The spans of one request: the request span (kind `internal`), one
/// `client` span per attempt, and an event on the request span for every
/// decision the policy made.
///
/// Made only when the executor traces, so an executor without a tracer
/// never builds one. Hedged copies run side by side, so attempt spans are
/// kept by attempt number behind a lock.
@usableFromInline
final class RequestTrace: Sendable {
    let span: any Span
    let attemptSpans: Bool
    let tracer: any Tracer
    let method: String
    let url: TracedURL?
    let state = LockedValue(State())

    struct State {
        /// Attempt spans not yet ended, by attempt number.
        var open: [Int: any Span] = [:]
        /// Copies were sent side by side: an attempt still in flight when
        /// the request settles is a hedged copy cancelled.
        var hedged = false
    }

    init(tracing: RetryTracing, request: RetryRequest, policy: String, at time: Timestamp, parent: ServiceContext) {
        tracer = tracing.tracer
        attemptSpans = tracing.attemptSpans
        method = request.method.rawValue
        url = RetryTracing.requestURL.flatMap(TracedURL.init)
        span = tracing.tracer.startSpan(
            "retry_policy.request", context: parent, ofKind: .internal, at: TraceInstant(time),
            function: #function, file: #fileID, line: #line)
        span.updateAttributes { attributes in
            attributes[SpanNames.policy] = policy
            if let endpoint = request.endpoint { attributes[SpanNames.endpoint] = endpoint }
            attributes[SpanNames.method] = method
            setTarget(&attributes)
        }
    }

    private func setTarget(_ attributes: inout SpanAttributes) {
        guard let url else { return }
        attributes[SpanNames.serverAddress] = url.serverAddress
        if let port = url.serverPort { attributes[SpanNames.serverPort] = port }
        attributes[SpanNames.urlFull] = url.full
    }

    /// The context an attempt runs in: its own span's, or the request's
    /// when attempts get no span of their own.
    func startAttempt(_ number: Int, at time: Timestamp) -> ServiceContext {
        guard attemptSpans else { return span.context }
        let attempt = tracer.startSpan(
            method, context: span.context, ofKind: .client, at: TraceInstant(time),
            function: #function, file: #fileID, line: #line)
        attempt.updateAttributes { attributes in
            attributes[SpanNames.method] = method
            attributes[SpanNames.attempt] = number
            if number > 1 { attributes[SpanNames.resendCount] = number - 1 }
            setTarget(&attributes)
        }
        state.withLock { $0.open[number] = attempt }
        return attempt.context
    }

    /// An attempt the policy judged: its span ends with the response or
    /// failure, and the request span gets the decision's event.
    func attemptFinished(_ record: AttemptRecord, at time: Timestamp) {
        let instant = TraceInstant(time)
        let errorType = Self.errorType(of: record)
        let (attemptSpan, hedged) = state.withLock { ($0.open.removeValue(forKey: record.number), $0.hedged) }
        if hedged, record.outcome == .transport(.cancelled) {
            var attributes: SpanAttributes = [:]
            attributes[SpanNames.attempt] = record.number
            span.addEvent(SpanEvent(name: "retry_policy.hedge.cancel", at: instant, attributes: attributes))
        }
        if let attempt = attemptSpan {
            attempt.updateAttributes { attributes in
                if case .response(let status, _) = record.outcome { attributes[SpanNames.statusCode] = status }
                if let errorType { attributes[SpanNames.errorType] = errorType }
                attributes[SpanNames.decision] = RetryTelemetry.decisionName(record.decision)
            }
            if errorType != nil { attempt.setStatus(SpanStatus(code: .error)) }
            attempt.end(at: instant)
        }
        if let delay = record.decision.delay {
            var attributes: SpanAttributes = [:]
            attributes[SpanNames.attempt] = record.number
            attributes[SpanNames.delay] = delay.seconds
            attributes[SpanNames.reason] = record.decision.errorKind?.rawValue ?? "retryable"
            if let rule = record.decision.ruleLocation { attributes[SpanNames.rule] = rule.description }
            attributes[SpanNames.serverDirected] = record.decision.serverDirected
            if record.decision.refreshCredentials { attributes[SpanNames.refreshCredentials] = true }
            span.addEvent(SpanEvent(name: "retry_policy.retry", at: instant, attributes: attributes))
        }
    }

    /// `error.type` of an attempt; `nil` for a success.
    static func errorType(of record: AttemptRecord) -> String? {
        if case .success = record.decision.action { return nil }
        return RetryTelemetry.errorType(of: record)
    }

    func waited(_ delay: Duration, cause: WaitReason, at time: Timestamp) {
        // A backoff or server-directed wait is the retry event's delay.
        guard cause == .cooldown else { return }
        var attributes: SpanAttributes = [:]
        attributes[SpanNames.delay] = delay.seconds
        span.addEvent(SpanEvent(name: "retry_policy.cooldown.wait", at: TraceInstant(time), attributes: attributes))
    }

    func breakerChanged(_ transition: CircuitBreakerTransition, at time: Timestamp) {
        var attributes: SpanAttributes = [:]
        let name: String
        switch transition {
        case .opened(_, let length, let reason):
            name = "retry_policy.breaker.open"
            attributes[SpanNames.breakerReason] = reason.rawValue
            attributes[SpanNames.breakDuration] = length.seconds
        case .halfOpened:
            name = "retry_policy.breaker.probe"
        case .closed:
            name = "retry_policy.breaker.close"
        }
        span.addEvent(SpanEvent(name: name, at: TraceInstant(time), attributes: attributes))
    }

    /// A hedged copy after the first starts while earlier ones are in
    /// flight or have failed.
    func hedgeStarted(_ number: Int, at time: Timestamp) {
        state.withLock { $0.hedged = true }
        var attributes: SpanAttributes = [:]
        attributes[SpanNames.attempt] = number
        span.addEvent(SpanEvent(name: "retry_policy.hedge.start", at: TraceInstant(time), attributes: attributes))
    }

    /// Ends the attempts still in flight when the request settled: hedged
    /// copies the winner made redundant, or an attempt cut off by
    /// cancellation.
    private func cancelOpenAttempts(at instant: TraceInstant) {
        let (cancelled, hedged) = state.withLock { state in
            defer { state.open.removeAll() }
            return (state.open.sorted { $0.key < $1.key }, state.hedged)
        }
        for (number, attempt) in cancelled {
            if hedged {
                var attributes: SpanAttributes = [:]
                attributes[SpanNames.attempt] = number
                span.addEvent(SpanEvent(name: "retry_policy.hedge.cancel", at: instant, attributes: attributes))
            }
            attempt.updateAttributes { $0[SpanNames.errorType] = "cancelled" }
            attempt.setStatus(SpanStatus(code: .error, message: "cancelled"))
            attempt.end(at: instant)
        }
    }

    func succeeded(attempts: Int, at time: Timestamp) {
        let instant = TraceInstant(time)
        cancelOpenAttempts(at: instant)
        span.updateAttributes { attributes in
            attributes[SpanNames.attempts] = attempts
            attributes[SpanNames.outcome] = "success"
        }
        span.end(at: instant)
    }

    /// The request stopped: the budget or a cooldown may be why, and the
    /// stop event says which.
    func failed(_ failure: RetryFailure, rejection: Admission.Rejection?, at time: Timestamp) {
        let instant = TraceInstant(time)
        cancelOpenAttempts(at: instant)
        switch rejection {
        case .cooldown:
            span.addEvent(SpanEvent(name: "retry_policy.cooldown.reject", at: instant, attributes: [:]))
        case .breaker:
            span.addEvent(SpanEvent(name: "retry_policy.breaker.reject", at: instant, attributes: [:]))
        // The budget's refusal has its own event below, from the stop
        // reason; the deadline's is the stop itself.
        case .deadline, .budget, .rateLimit, nil:
            break
        }
        if failure.reason == .budgetExhausted {
            span.addEvent(SpanEvent(name: "retry_policy.budget.exhausted", at: instant, attributes: [:]))
        }
        var stop: SpanAttributes = [:]
        stop[SpanNames.stopReason] = failure.reason.rawValue
        stop[SpanNames.errorType] = failure.error.kind.rawValue
        stop[SpanNames.attempts] = failure.attempts.count
        span.addEvent(SpanEvent(name: "retry_policy.stop", at: instant, attributes: stop))
        span.updateAttributes { attributes in
            attributes[SpanNames.attempts] = failure.attempts.count
            attributes[SpanNames.outcome] = "failure"
            attributes[SpanNames.stopReason] = failure.reason.rawValue
            attributes[SpanNames.errorType] = failure.error.kind.rawValue
        }
        span.setStatus(SpanStatus(code: .error, message: failure.reason.rawValue))
        span.end(at: instant)
    }
}

/// The request's trace travels in its service context: every step of the
/// request can reach it without a parameter, and nothing is looked up when
/// the executor does not trace.
enum RequestTraceKey: ServiceContextKey {
    typealias Value = RequestTrace
}

extension Duration {
    /// Seconds as a floating-point number, the unit OpenTelemetry uses for
    /// durations.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
