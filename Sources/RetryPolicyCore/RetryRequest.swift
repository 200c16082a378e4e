/// What the policy needs to know about a request before it is sent.
///
/// The method and the caller's idempotency promise decide whether a retry
/// is safe; the endpoint selects per-endpoint (per-placement) timeouts.
public struct RetryRequest: Hashable, Sendable {
    public var method: HTTPMethod
    /// The caller vouches that sending the request twice is harmless (an
    /// idempotency key is set), so even a `POST` may be retried when the
    /// policy honours such promises.
    public var markedIdempotent: Bool
    /// Selects an entry of the policy's `endpoints` table.
    public var endpoint: String?

    public init(method: HTTPMethod = .get, markedIdempotent: Bool = false, endpoint: String? = nil) {
        self.method = method
        self.markedIdempotent = markedIdempotent
        self.endpoint = endpoint
    }
}

/// What an operation is told about the attempt it is performing.
public struct AttemptContext: Hashable, Sendable {
    /// 1 for the first try.
    public var attempt: Int
    /// How many times credentials were refreshed for this request; an
    /// operation that reads its token per attempt sees the new one anyway,
    /// this lets it log or assert it.
    public var credentialRefreshes: Int

    public init(attempt: Int, credentialRefreshes: Int = 0) {
        self.attempt = attempt
        self.credentialRefreshes = credentialRefreshes
    }
}
