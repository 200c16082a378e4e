import RetryPolicyCore

/// What an HTTP adapter reads from a request before sending it under a
/// policy: its method, its address, and whether the caller marked it
/// idempotent with an `Idempotency-Key` header.
///
/// Every adapter (URLSession, AsyncHTTPClient, the OpenAPI middleware)
/// reads the same things the same way, here, so that one request means the
/// same to the policy whichever client sends it.
public struct HTTPRequestHead: Hashable, Sendable {
    /// The header a caller marks a request idempotent with: a server that
    /// deduplicates by it makes sending the request twice harmless.
    public static let idempotencyKeyHeader = "Idempotency-Key"

    public var method: HTTPMethod
    /// The request's address, recorded on its spans (`url.full`); the
    /// policy never reads it.
    public var url: String?
    /// The request carries ``idempotencyKeyHeader``.
    public var hasIdempotencyKey: Bool
    /// Selects the policy's per-endpoint time limits.
    public var endpoint: String?
    /// What the caller says about sending the request twice; `nil` reads
    /// ``hasIdempotencyKey``.
    public var retryability: RetryRequest.Retryability?

    public init(
        method: HTTPMethod,
        url: String?,
        hasIdempotencyKey: Bool,
        endpoint: String? = nil,
        retryability: RetryRequest.Retryability? = nil
    ) {
        self.method = method
        self.url = url
        self.hasIdempotencyKey = hasIdempotencyKey
        self.endpoint = endpoint
        self.retryability = retryability
    }

    /// What the policy is told: the caller's retryability when it gave
    /// one; otherwise a request with an `Idempotency-Key` is idempotent and
    /// any other is judged by its method.
    public var retryRequest: RetryRequest {
        RetryRequest(
            method: method, retryability: retryability ?? (hasIdempotencyKey ? .idempotent : .asPolicySays),
            endpoint: endpoint)
    }
}
