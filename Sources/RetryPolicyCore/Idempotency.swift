/// Which requests may be sent twice.
///
/// Retrying a non-idempotent request (a payment `POST`) can perform it
/// twice; a policy lists the methods that are safe and whether a caller's
/// explicit "this request is idempotent" (an idempotency key) is trusted.
public struct Idempotency: Hashable, Sendable {
    public var retryableMethods: Set<HTTPMethod>
    /// Whether a request the caller marked idempotent is retryable whatever
    /// its method.
    public var honorIdempotentRequests: Bool
    /// `true` when the policy file stated this section rather than taking
    /// the defaults; lint uses it to tell deliberate choices from omissions.
    public var isExplicit: Bool
    public var location: SourceLocation?

    public init(
        retryableMethods: Set<HTTPMethod> = HTTPMethod.defaultRetryable,
        honorIdempotentRequests: Bool = true,
        isExplicit: Bool = false,
        location: SourceLocation? = nil
    ) {
        self.retryableMethods = retryableMethods
        self.honorIdempotentRequests = honorIdempotentRequests
        self.isExplicit = isExplicit
        self.location = location
    }

    package func allowsRetry(method: HTTPMethod, markedIdempotent: Bool) -> Bool {
        retryableMethods.contains(method) || (markedIdempotent && honorIdempotentRequests)
    }
}
