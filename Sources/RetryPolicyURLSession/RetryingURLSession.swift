#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RetryPolicyCore
import RetryPolicyExecutor

/// A URLSession response: the body and the HTTP metadata.
public struct URLSessionResponse: RetryableResponse, @unchecked Sendable {
    public var data: Data
    /// `HTTPURLResponse` is immutable once delivered, hence the unchecked
    /// `Sendable`.
    public var response: HTTPURLResponse

    public init(data: Data, response: HTTPURLResponse) {
        self.data = data
        self.response = response
    }

    public var statusCode: Int { response.statusCode }
    public func headerValue(named name: String) -> String? { response.value(forHTTPHeaderField: name) }
}

/// A `URLSession` decorator that sends every request under a policy (the
/// seed TMDb client's `RetryHTTPClient`, with the decisions as data).
///
/// ```swift
/// let session = RetryingURLSession(session: .shared, policy: policy)
/// let (data, response) = try await session.data(for: URLRequest(url: url), endpoint: "main_banner")
/// ```
///
/// A request carrying an `Idempotency-Key` header counts as marked
/// idempotent; one whose body is an `httpBodyStream` is sent once. Give
/// the session a generous `timeoutInterval`: the policy's
/// per-attempt timeout is enforced by cancelling the attempt.
public struct RetryingURLSession<C: Clock>: Sendable where C.Duration == Duration {
    public let session: URLSession
    public var executor: RetryExecutor<C>

    /// - Parameters:
    ///   - session: the session every attempt is sent with.
    ///   - executor: the policy's executor; the URLSession classifier goes
    ///     in front of its own.
    ///   - urlErrors: `URLError` codes to read differently from the
    ///     standard table (see `ErrorClassifier.urlSession(overriding:)`).
    public init(session: URLSession, executor: RetryExecutor<C>, urlErrors: [URLError.Code: AttemptOutcome] = [:]) {
        self.session = session
        var executor = executor
        executor.classifier = ErrorClassifier.urlSession(overriding: urlErrors).chained(with: executor.classifier)
        self.executor = executor
    }

    /// Sends `request` under the policy.
    public func data(
        for request: URLRequest,
        endpoint: String? = nil,
        retryability: RetryRequest.Retryability? = nil,
        classify: (Result<URLSessionResponse, any Error>) -> AttemptOutcome? = { _ in nil },
        returningLastResponse: Bool = false
    ) async throws(RetryFailure) -> (Data, HTTPURLResponse) {
        var generator = SystemRandomNumberGenerator()
        return try await data(
            for: request, endpoint: endpoint, retryability: retryability, classify: classify,
            returningLastResponse: returningLastResponse, using: &generator)
    }

    /// ``data(for:endpoint:retryability:classify:returningLastResponse:)`` drawing jitter from
    /// `generator`.
    ///
    /// - Parameters:
    ///   - request: the request every attempt sends.
    ///   - endpoint: selects the policy's per-endpoint time limits.
    ///   - retryability: whether sending the request twice is safe; by
    ///     default a request with an `httpBodyStream` is not (its stream
    ///     is spent by the first attempt), one with an `Idempotency-Key`
    ///     header is idempotent, and any other is judged by its method.
    ///   - classify: reads a response the policy cannot (a 200 whose body
    ///     is an error page: a condition the policy declares).
    ///   - returningLastResponse: when the policy stops on a response,
    ///     return it instead of throwing.
    ///   - generator: the source of jitter (a seeded `SplitMix64` makes
    ///     runs reproducible).
    public func data<G: RandomNumberGenerator>(
        for request: URLRequest,
        endpoint: String? = nil,
        retryability: RetryRequest.Retryability? = nil,
        classify: (Result<URLSessionResponse, any Error>) -> AttemptOutcome? = { _ in nil },
        returningLastResponse: Bool = false,
        using generator: inout G
    ) async throws(RetryFailure) -> (Data, HTTPURLResponse) {
        let head = HTTPRequestHead(
            method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), url: request.url?.absoluteString,
            hasIdempotencyKey: request.value(forHTTPHeaderField: HTTPRequestHead.idempotencyKeyHeader) != nil,
            endpoint: endpoint,
            // A body stream is read by the first attempt: there is nothing
            // left to send again.
            retryability: retryability ?? (request.httpBodyStream != nil ? .unsafe : nil))
        let session = self.session
        // URLSession makes no spans: the executor's attempt span is the
        // client span.
        let response = try await executor.sendHTTP(
            head, using: &generator, classify: classify, returningLastResponse: returningLastResponse
        ) { attempt in
            var request = request
            for (name, value) in attempt.traceHeaders { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw TransportError(.decoding, detail: "not an HTTP response")
            }
            return URLSessionResponse(data: data, response: http)
        }
        return (response.data, response.response)
    }
}

extension RetryingURLSession where C == ContinuousClock {
    /// A decorator on the continuous clock for `policy`.
    public init(
        session: URLSession,
        policy: Policy,
        urlErrors: [URLError.Code: AttemptOutcome] = [:],
        observer: RetryObserver? = nil,
        telemetry: RetryTelemetry? = nil
    ) {
        self.init(
            session: session,
            executor: RetryExecutor(decider: RetryDecider(policy: policy), observer: observer, telemetry: telemetry),
            urlErrors: urlErrors)
    }
}
