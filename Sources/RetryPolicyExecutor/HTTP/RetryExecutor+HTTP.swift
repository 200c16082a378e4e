import RetryPolicyCore
import Tracing

extension RetryExecutor {
    /// The flow every HTTP adapter shares around its transport: the
    /// request's method and `Idempotency-Key` told to the policy, each
    /// attempt run by `send` in a child task (so a per-attempt time limit
    /// cancels it), the response judged by its status and headers
    /// (`Retry-After` included), the attempt span's context handed to
    /// `send` as headers, the request's address given to its spans, and
    /// the observer, metrics and logs reported as for any request.
    ///
    /// An adapter is then only its transport's translation: it reads a
    /// ``HTTPRequestHead`` from its request, and `send` sets the attempt's
    /// trace headers, sends, and returns the whole response (its body read
    /// inside the attempt, so that a connection lost in the middle of it is
    /// a failure the policy can retry).
    ///
    /// - Parameters:
    ///   - head: the request as the policy sees it.
    ///   - generator: the source of jitter.
    ///   - classify: reads a response the policy cannot.
    ///   - returningLastResponse: when the policy stops on a response,
    ///     return it instead of throwing.
    ///   - send: sends one attempt.
    @inlinable
    public func sendHTTP<Response: RetryableResponse, G: RandomNumberGenerator>(
        _ head: HTTPRequestHead,
        using generator: inout G,
        classify: (Result<Response, any Error>) -> AttemptOutcome? = { _ in nil },
        returningLastResponse: Bool = false,
        send: @Sendable (HTTPAttempt) async throws -> Response
    ) async throws(RetryFailure) -> Response {
        let request = head.retryRequest
        // The executor's attempt span is the client span: its context goes
        // to the server in the request's headers, as a client's own would.
        let injecting = tracing.flatMap { $0.attemptSpans ? $0.tracer : nil }
        func run() async throws(RetryFailure) -> Response {
            try await runConcurrently(
                request, using: &generator, classify: classify, returningLastResponse: returningLastResponse
            ) { context in
                var headers: [(name: String, value: String)] = []
                if let injecting, let current = ServiceContext.current {
                    injecting.inject(current, into: &headers, using: HeaderPairInjector())
                }
                return try await send(HTTPAttempt(context: context, traceHeaders: headers))
            }
        }
        guard tracing != nil else { return try await run() }
        let outcome: Result<Response, RetryFailure> = await RetryTracing.$requestURL.withValue(head.url) {
            do throws(RetryFailure) { return .success(try await run()) } catch { return .failure(error) }
        }
        return try outcome.get()
    }
}

/// Collects a trace context as header name-value pairs, for any client's
/// header type.
@usableFromInline
struct HeaderPairInjector: Injector {
    @inlinable init() {}

    @inlinable
    func inject(_ value: String, forKey key: String, into headers: inout [(name: String, value: String)]) {
        headers.append((name: key, value: value))
    }
}
