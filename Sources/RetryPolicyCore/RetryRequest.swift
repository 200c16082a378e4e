/// What the policy needs to know about a request before it is sent.
///
/// The method and the caller's idempotency promise decide whether a retry
/// is safe; the endpoint selects per-endpoint (per-placement) timeouts.
public struct RetryRequest: Hashable, Sendable {
    /// What the caller says about sending this request twice, against or
    /// along with the policy's `idempotency` methods.
    public enum Retryability: Hashable, Sendable {
        /// The policy's `idempotency` decides by the method.
        case asPolicySays
        /// Sending it twice is harmless (an idempotency key is set): even a
        /// `POST` may be retried when the policy honours such promises.
        case idempotent
        /// Sending it twice is not safe, whatever its method (a `GET` that
        /// changes state): never retried, never hedged.
        case unsafe
    }

    public var method: HTTPMethod
    public var retryability: Retryability
    /// Selects an entry of the policy's `endpoints` table.
    public var endpoint: String?

    /// The caller vouches that sending the request twice is harmless.
    public var markedIdempotent: Bool {
        get { retryability == .idempotent }
        set { retryability = newValue ? .idempotent : .asPolicySays }
    }

    @inlinable
    public init(method: HTTPMethod = .get, markedIdempotent: Bool = false, endpoint: String? = nil) {
        self.method = method
        self.retryability = markedIdempotent ? .idempotent : .asPolicySays
        self.endpoint = endpoint
    }

    @inlinable
    public init(method: HTTPMethod = .get, retryability: Retryability, endpoint: String? = nil) {
        self.method = method
        self.retryability = retryability
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

    /// The attempt's own time limit (the policy's `per_attempt`, or less
    /// when the total deadline is nearer), when there is one. An executor
    /// that runs attempts in child tasks enforces it by cancelling the
    /// attempt; one that runs them in the caller's task
    /// (`RetryExecutor.run` of RetryPolicyExecutor) cannot, and the
    /// operation should give it to its client (a request's timeout).
    public var timeLimit: Duration?

    @usableFromInline package init(attempt: Int, credentialRefreshes: Int = 0, timeLimit: Duration? = nil) {
        self.attempt = attempt
        self.credentialRefreshes = credentialRefreshes
        self.timeLimit = timeLimit
    }
}
