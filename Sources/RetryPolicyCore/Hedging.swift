/// Hedging: instead of waiting for an attempt to fail before retrying,
/// start another copy of the request if the first has not answered within
/// ``delay``, and keep the first answer that settles the request.
///
/// Modelled on gRPC's `hedgingPolicy` (gRFC A6) and Polly's hedging
/// strategy. Up to the policy's `attempts` copies run, started ``delay``
/// apart; the first success wins and the others are cancelled. An outcome
/// the policy retries (its rule says `retry`) is *non-fatal*: the next
/// copy starts at once, or after the server's delay when the policy
/// honours one. Any other failure is *fatal*: it ends the request and
/// cancels every copy in flight. Every copy after the first is paid for
/// from the retry budget like a retry, and goes through the cooldown and
/// the circuit breaker like any attempt.
///
/// Hedging sends a request again while the first copy may still be in
/// progress, so it applies only to idempotent requests: ``methods`` (by
/// default the policy's retryable methods that RFC 9110 §9.2.2 defines as
/// idempotent) and requests the caller marked idempotent when the policy
/// honours that mark. Other requests run with ordinary retries.
public struct HedgingPolicy: Hashable, Sendable {
    /// How long to wait for an answer before starting the next copy.
    public var delay: Duration
    /// The methods that are hedged; `nil` means the policy's retryable
    /// methods that are idempotent by definition.
    public var methods: Set<HTTPMethod>?
    public var location: SourceLocation?

    public init(delay: Duration, methods: Set<HTTPMethod>? = nil, location: SourceLocation? = nil) {
        self.delay = delay
        self.methods = methods
        self.location = location
    }

    /// The methods hedged under `idempotency`.
    package func hedgedMethods(_ idempotency: Idempotency) -> Set<HTTPMethod> {
        methods ?? idempotency.retryableMethods.intersection(HTTPMethod.idempotent)
    }

    /// Whether a request is hedged.
    package func applies(to method: HTTPMethod, markedIdempotent: Bool, idempotency: Idempotency) -> Bool {
        hedgedMethods(idempotency).contains(method) || (markedIdempotent && idempotency.honorIdempotentRequests)
    }
}

extension HTTPMethod {
    /// The methods RFC 9110 §9.2.2 defines as idempotent: sending one twice
    /// has the same effect on the server as sending it once.
    public static let idempotent: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]
}
