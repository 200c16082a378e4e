#if OpenAPI  // the trait; without it this module is empty
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import RetryPolicyCore
import RetryPolicyExecutor

/// A swift-openapi-runtime client middleware that runs every operation of
/// a generated client under its policy.
///
/// ```swift
/// let client = Client(
///     serverURL: try Servers.Server1.url(),
///     transport: URLSessionTransport(),
///     middlewares: [RetryingMiddleware(policies: .all(policy), classifier: .urlSession)])
/// ```
///
/// Each request goes through the same flow as `RetryingURLSession` and
/// `RetryingHTTPClient` (RetryPolicyExecutor's `sendHTTP`): its method
/// and `Idempotency-Key` decide whether it may be sent twice, each response
/// is judged by status and headers, `Retry-After` is honoured, cancelling
/// the task stops at once with a `cancelled` failure, and the executor's
/// observer, metrics, logs and spans report every attempt. The operation's
/// `operationId` picks its policy (``OperationPolicies``) and names its
/// endpoint, so a policy's `endpoints.<operationId>` time limits apply.
///
/// A request is retried only when its body can be sent again: no body, a
/// body that can be iterated again, or a one-shot stream no longer than
/// ``maxBufferedRequestBytes``, which is read into memory first. A longer
/// stream is sent once (its request marked unsafe to repeat, so the
/// policy stops after the first attempt with `not_idempotent`) and the
/// logger says so.
///
/// Put the middleware last in the client's list when other middlewares
/// (authentication, say) must run again on every attempt, and first when
/// they must run once.
///
/// The policy's failure reaches the caller inside the generated client's
/// `ClientError`: `(error as? ClientError)?.underlyingError as? RetryFailure`.
public struct RetryingMiddleware<C: Clock>: ClientMiddleware where C.Duration == Duration {
    /// The clock, classifier and hooks of every operation; its decider is
    /// replaced by the operation's.
    public var executor: RetryExecutor<C>
    public var policies: OperationPolicies
    /// The largest one-shot request body read into memory so that it can
    /// be sent again.
    public var maxBufferedRequestBytes: Int
    /// Response bodies are read inside the attempt up to this size, so a
    /// connection lost in the middle of one is a failure the policy can
    /// retry, and a longer body fails the attempt (as `unknown`) instead of
    /// exhausting memory; `nil` hands bodies on as they stream (an event
    /// stream, a download), and a failure while reading one is the
    /// caller's.
    public var maxResponseBytes: Int?
    /// When the policy stops on a response, return it to the generated
    /// client (which decodes it as the operation's documented or
    /// undocumented output) instead of throwing.
    public var returningLastResponse: Bool
    public var idempotencyKeys: IdempotencyKeys
    /// Told when a request body cannot be sent twice.
    public var logger: Logger?

    /// - Parameters:
    ///   - policies: the policy of each operation.
    ///   - executor: the clock, hooks and error classifier every operation
    ///     runs with (its decider is the operation's); the classifier is
    ///     the transport's (`.urlSession`, `.asyncHTTPClient`), and reads
    ///     errors through the generated client's `ClientError`.
    ///   - maxBufferedRequestBytes: the largest one-shot request body
    ///     buffered for replay (1 MiB by default).
    ///   - maxResponseBytes: the largest response body read inside the
    ///     attempt (16 MiB by default); `nil` streams them.
    ///   - returningLastResponse: return the response the policy stopped
    ///     on rather than throw.
    ///   - idempotencyKeys: whether to add an `Idempotency-Key` when the
    ///     policy retries the method only with one.
    ///   - logger: told when a request body cannot be replayed.
    public init(
        policies: OperationPolicies,
        executor: RetryExecutor<C>,
        maxBufferedRequestBytes: Int = 1 << 20,
        maxResponseBytes: Int? = 16 << 20,
        returningLastResponse: Bool = true,
        idempotencyKeys: IdempotencyKeys = .callers,
        logger: Logger? = nil
    ) {
        var executor = executor
        executor.classifier = .openAPI(transport: executor.classifier)
        self.executor = executor
        self.policies = policies
        self.maxBufferedRequestBytes = max(0, maxBufferedRequestBytes)
        self.maxResponseBytes = maxResponseBytes.map { max(0, $0) }
        self.returningLastResponse = returningLastResponse
        self.idempotencyKeys = idempotencyKeys
        self.logger = logger
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard let decider = policies.decider(operationID) else { return try await next(request, body, baseURL) }
        var executor = self.executor
        executor.decider = decider

        var request = request
        let method = RetryPolicyCore.HTTPMethod(rawValue: request.method.rawValue)
        if request.headerFields[.idempotencyKey] == nil,
            let key = idempotencyKeys.key(for: method, under: decider.policy.idempotency)
        {
            request.headerFields[.idempotencyKey] = key
        }
        let replay = try await RequestBodyReplay.prepare(body, bufferingUpTo: maxBufferedRequestBytes)
        if !replay.isReplayable {
            logger?.warning(
                "request body is a stream longer than the replay buffer: sent once, not retried",
                metadata: [
                    "retry.operation": "\(operationID)",
                    "retry.replay_buffer_bytes": "\(maxBufferedRequestBytes)",
                ])
        }
        let head = HTTPRequestHead(
            method: method, url: Self.address(of: request, at: baseURL),
            hasIdempotencyKey: request.headerFields[.idempotencyKey] != nil, endpoint: operationID,
            retryability: replay.isReplayable ? nil : .unsafe)

        let sentRequest = request
        let sentBody = replay.body
        let maxResponseBytes = self.maxResponseBytes
        var generator = SystemRandomNumberGenerator()
        let response = try await executor.sendHTTP(
            head, using: &generator, returningLastResponse: returningLastResponse
        ) { attempt in
            var request = sentRequest
            for (name, value) in attempt.traceHeaders {
                if let name = HTTPField.Name(name) { request.headerFields[name] = value }
            }
            let (response, body) = try await next(request, sentBody, baseURL)
            guard let maxResponseBytes, let body else { return OpenAPIResponse(response: response, body: body) }
            let bytes = try await ArraySlice<UInt8>(collecting: body, upTo: maxResponseBytes)
            return OpenAPIResponse(response: response, body: HTTPBody(bytes))
        }
        return (response.response, response.body)
    }

    /// The request's full address, for its spans.
    static func address(of request: HTTPRequest, at baseURL: URL) -> String {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + (request.path ?? "")
    }
}

extension RetryingMiddleware where C == ContinuousClock {
    /// A middleware on the continuous clock.
    ///
    /// - Parameters:
    ///   - policies: the policy of each operation.
    ///   - classifier: how the transport's errors read
    ///     (`.urlSession` from RetryPolicyURLSession, `.asyncHTTPClient`
    ///     from RetryPolicyAsyncHTTPClient).
    ///   - observer: receives every event of every request.
    ///   - telemetry: metrics and logs.
    ///   - idempotencyKeys: whether to add an `Idempotency-Key` when the
    ///     policy retries the method only with one.
    ///   - logger: told when a request body cannot be replayed.
    public init(
        policies: OperationPolicies,
        classifier: ErrorClassifier = .standard,
        observer: RetryObserver? = nil,
        telemetry: RetryTelemetry? = nil,
        idempotencyKeys: IdempotencyKeys = .callers,
        logger: Logger? = nil
    ) {
        self.init(
            policies: policies,
            executor: RetryExecutor(
                decider: RetryDecider(policy: Policy(name: "operation", attempts: 1)), classifier: classifier,
                observer: observer, telemetry: telemetry),
            idempotencyKeys: idempotencyKeys, logger: logger)
    }
}

extension HTTPField.Name {
    /// `Idempotency-Key`, which marks a request the caller made safe to
    /// send twice.
    static let idempotencyKey = HTTPField.Name(HTTPRequestHead.idempotencyKeyHeader)!
}
#endif
