#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import RetryPolicyCore

extension Policy {
    /// A policy with one rule for `transport` and nothing else: a stop
    /// rule must end the request after one attempt, a retry rule after
    /// `attempts`. Retries are immediate, so no clock has to be driven.
    public static func single(
        _ transport: TransportFailure,
        _ action: Rule.Action,
        attempts: Int = 3,
        perAttempt: Duration? = nil
    ) -> Policy {
        Policy(
            name: "\(transport)-\(action)",
            attempts: attempts,
            backoff: .immediate,
            timeouts: TimeoutBudget(perAttempt: perAttempt),
            rules: [Rule(transports: [transport], error: .networkError, action: action)],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
    }
}

/// A host under the reserved `.invalid` top-level domain, which RFC 6761
/// guarantees never resolves.
public let invalidTLDHost = "retry-policy-test.invalid"
#endif
