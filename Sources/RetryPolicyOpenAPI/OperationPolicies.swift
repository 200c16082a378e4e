#if OpenAPI  // the trait; without it this module is empty
import RetryPolicyCore

/// Which policy each OpenAPI operation runs under, by its `operationId`.
///
/// A decider is looked up for every request; the same decider serves every
/// request of the operations that share it, so their retry budget,
/// cooldown and circuit breaker are shared too. An operation without a
/// policy is sent once, as if the middleware were not there.
///
/// ```swift
/// // In code:
/// let policies = OperationPolicies(["getMovie": movies, "createOrder": payments], default: standard)
/// // From a directory of policy files (RetryPolicyStore), following reloads:
/// let policies = OperationPolicies { operationID in
///     store.decider(named: operationID) ?? store.decider(named: "default")
/// }
/// ```
public struct OperationPolicies: Sendable {
    /// The decider for an operation, or `nil` to send it unretried.
    public let decider: @Sendable (_ operationID: String) -> RetryDecider?

    /// Deciders looked up per request: a `PolicyStore`'s
    /// `decider(named:)` serves the policy of the moment, reloads included.
    public init(lookup: @escaping @Sendable (_ operationID: String) -> RetryDecider?) {
        decider = lookup
    }

    /// Policies built in code, one decider each, made here once.
    ///
    /// - Parameters:
    ///   - policies: the policy of each listed operation.
    ///   - fallback: the policy of every other operation; `nil` sends them
    ///     unretried.
    public init(_ policies: [String: Policy], default fallback: Policy? = nil) {
        let deciders = policies.mapValues { RetryDecider(policy: $0) }
        let fallbackDecider = fallback.map { RetryDecider(policy: $0) }
        decider = { deciders[$0] ?? fallbackDecider }
    }

    /// One policy, and one decider, for every operation.
    public static func all(_ policy: Policy) -> OperationPolicies {
        OperationPolicies([:], default: policy)
    }
}
#endif
