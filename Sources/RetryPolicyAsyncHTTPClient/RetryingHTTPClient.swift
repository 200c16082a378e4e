#if AsyncHTTPClient  // the trait; without it this module is empty
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import RetryPolicyCore
import RetryPolicyExecutor

/// A complete response: status, headers and the collected body.
///
/// The body is read inside the attempt, so a connection that drops in the
/// middle of it is a `connection_lost` failure the policy can retry, not a
/// half response handed to the caller.
public struct HTTPResponse: RetryableResponse, Sendable {
    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: ByteBuffer

    public init(status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var statusCode: Int { Int(status.code) }
    public func headerValue(named name: String) -> String? { headers.first(name: name) }
}

/// An `HTTPClient` decorator that sends every request under a policy.
///
/// ```swift
/// let client = RetryingHTTPClient(client: .shared, policy: policy)
/// var request = HTTPClientRequest(url: "https://api.themoviedb.org/3/movie/550")
/// let response = try await client.execute(request, endpoint: "movie")
/// ```
///
/// Each attempt re-sends the same request, so its body must be replayable
/// (bytes, not a one-shot stream).
///
/// The policy owns retrying, so the wrapped client should not retry on its
/// own: by default AsyncHTTPClient keeps re-establishing a refused
/// connection until the request's deadline. Create the client with
/// ``recommendedConfiguration`` (or set
/// `connectionPool.retryConnectionEstablishment = false`) so a refused port
/// is reported at once as `connection_refused`. A request carrying an `Idempotency-Key`
/// header counts as marked idempotent, so a policy that honours such
/// requests may retry it even for `POST`.
public struct RetryingHTTPClient<C: Clock>: Sendable where C.Duration == Duration {
    public let client: HTTPClient
    public var executor: RetryExecutor<C>
    /// Responses larger than this fail the attempt (as `unknown`) instead
    /// of exhausting memory.
    public var maxBodyBytes: Int

    /// Puts the AsyncHTTPClient error mapping in front of the executor's
    /// own classifier.
    /// When `client` has a tracer, it makes a client span for every
    /// attempt, so the executor makes only the request span.
    public init(client: HTTPClient, executor: RetryExecutor<C>, maxBodyBytes: Int = 16 * 1024 * 1024) {
        self.client = client
        var executor = executor
        executor.classifier = ErrorClassifier.asyncHTTPClient.chained(with: executor.classifier)
        // A client with a tracer makes a client span for every request it
        // sends, that is for every attempt: the executor then makes none of
        // its own, and the client's spans nest under the request span.
        // (Turn the client's tracer off, `tracing.tracer = nil`, to get the
        // executor's attempt spans, which carry the resend count.)
        if client.tracer != nil, var tracing = executor.tracing {
            tracing.attemptSpans = false
            executor.tracing = tracing
        }
        self.executor = executor
        self.maxBodyBytes = maxBodyBytes
    }

    /// Sends `request` under the policy and returns the response the policy
    /// accepted, or throws the error it chose.
    public func execute(
        _ request: HTTPClientRequest,
        endpoint: String? = nil,
        retryability: RetryRequest.Retryability? = nil,
        classify: (Result<HTTPResponse, any Error>) -> AttemptOutcome? = { _ in nil },
        returningLastResponse: Bool = false
    ) async throws(RetryFailure) -> HTTPResponse {
        var generator = SystemRandomNumberGenerator()
        return try await execute(request, endpoint: endpoint, retryability: retryability, classify: classify,
            returningLastResponse: returningLastResponse, using: &generator)
    }

    /// ``execute(_:endpoint:retryability:classify:returningLastResponse:)`` drawing jitter from
    /// `generator`.
    ///
    /// - Parameters:
    ///   - request: the request every attempt sends.
    ///   - endpoint: selects the policy's per-endpoint time limits.
    ///   - retryability: whether sending the request twice is safe; by
    ///     default a request with an `Idempotency-Key` header is idempotent
    ///     and any other is judged by its method.
    ///   - classify: reads a response the policy cannot (a 200 whose body
    ///     is an error page: a condition the policy declares).
    ///   - returningLastResponse: when the policy stops on a response,
    ///     return it instead of throwing.
    ///   - generator: the source of jitter (a seeded `SplitMix64` makes
    ///     runs reproducible).
    public func execute<G: RandomNumberGenerator>(
        _ request: HTTPClientRequest,
        endpoint: String? = nil,
        retryability: RetryRequest.Retryability? = nil,
        classify: (Result<HTTPResponse, any Error>) -> AttemptOutcome? = { _ in nil },
        returningLastResponse: Bool = false,
        using generator: inout G
    ) async throws(RetryFailure) -> HTTPResponse {
        let head = HTTPRequestHead(
            method: RetryPolicyCore.HTTPMethod(rawValue: request.method.rawValue), url: request.url,
            hasIdempotencyKey: request.headers.contains(name: HTTPRequestHead.idempotencyKeyHeader),
            endpoint: endpoint, retryability: retryability)
        let client = self.client
        let maxBodyBytes = self.maxBodyBytes
        return try await executor.sendHTTP(
            head, using: &generator, classify: classify, returningLastResponse: returningLastResponse
        ) { attempt in
            var request = request
            for (name, value) in attempt.traceHeaders { request.headers.replaceOrAdd(name: name, value: value) }
            // The executor enforces the policy's timeouts by cancelling the
            // attempt; the client's own deadline is only a backstop.
            let response = try await client.execute(request, deadline: .distantFuture)
            let body = try await response.body.collect(upTo: maxBodyBytes)
            return HTTPResponse(status: response.status, headers: response.headers, body: body)
        }
    }
}

extension RetryingHTTPClient {
    /// An `HTTPClient` configuration that leaves every retry to the policy:
    /// connection establishment is tried once per attempt, and redirects
    /// are followed as usual. The client makes no spans of its own: the
    /// executor's attempt spans are the client spans, with the resend count
    /// the client's own would lack.
    public static var recommendedConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tracing.tracer = nil
        return configuration
    }
}

extension RetryingHTTPClient where C == ContinuousClock {
    /// A decorator on the continuous clock for `policy`.
    public init(
        client: HTTPClient,
        policy: Policy,
        observer: RetryObserver? = nil,
        telemetry: RetryTelemetry? = nil
    ) {
        self.init(
            client: client,
            executor: RetryExecutor(decider: RetryDecider(policy: policy), observer: observer, telemetry: telemetry))
    }
}
#endif
