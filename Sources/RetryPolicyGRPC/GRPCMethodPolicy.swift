#if GRPC  // the trait; without it this module is empty
import GRPCCore
import RetryPolicyCore
import RetryPolicyExecutor

/// How one gRPC method's calls run: the executor (policy, clock, hooks)
/// and what the policy is told about each call.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public struct GRPCMethodPolicy<C: Clock>: Sendable where C.Duration == Duration {
    public var executor: RetryExecutor<C>
    /// Whether sending the call twice is safe. gRPC retries by status
    /// (gRFC A6), whatever the method does, so the default vouches for
    /// every call (`.idempotent`: a policy that honours such promises
    /// retries it); `.asPolicySays` leaves it to the policy's
    /// `idempotency` methods, which see every call as a `POST`, and
    /// `.unsafe` never retries or hedges it.
    public var retryability: RetryRequest.Retryability
    /// Selects an entry of the policy's `endpoints` table; by default the
    /// method's full name, `package.Service/Method`.
    public var endpoint: String?

    public init(
        executor: RetryExecutor<C>, retryability: RetryRequest.Retryability = .idempotent, endpoint: String? = nil
    ) {
        self.executor = executor
        self.retryability = retryability
        self.endpoint = endpoint
    }
}

/// Which policy runs each gRPC method's calls: a method without one is
/// sent as it is, once.
///
/// ```swift
/// let policies = GRPCMethodPolicies.byName([
///     "shop.Catalog": catalogExecutor,           // every method of the service
///     "shop.Orders/Create": createExecutor,      // one method
/// ])
/// ```
///
/// With a `PolicyStore`, pick the decider per call, so that a reload
/// takes effect at the next call:
///
/// ```swift
/// let policies = GRPCMethodPolicies<ContinuousClock> { method in
///     store.decider(named: method.service.fullyQualifiedService).map {
///         GRPCMethodPolicy(executor: RetryExecutor(decider: $0, telemetry: telemetry))
///     }
/// }
/// ```
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
public struct GRPCMethodPolicies<C: Clock>: Sendable where C.Duration == Duration {
    private let select: @Sendable (MethodDescriptor) -> GRPCMethodPolicy<C>?

    /// - Parameter select: the policy for a method, or `nil` to send its
    ///   calls once, as they are. Called once per call.
    public init(_ select: @escaping @Sendable (MethodDescriptor) -> GRPCMethodPolicy<C>?) {
        self.select = select
    }

    /// One executor for every method.
    public static func all(_ executor: RetryExecutor<C>) -> Self {
        let policy = GRPCMethodPolicy(executor: executor)
        return Self { _ in policy }
    }

    /// By the method's full name (`package.Service/Method`), then its
    /// service's (`package.Service`), then `fallback`.
    public static func byName(_ executors: [String: RetryExecutor<C>], default fallback: RetryExecutor<C>? = nil) -> Self {
        Self { method in
            let executor = executors[method.fullyQualifiedMethod] ?? executors[method.service.fullyQualifiedService] ?? fallback
            return executor.map { GRPCMethodPolicy(executor: $0) }
        }
    }

    /// The policy for `method`, its endpoint filled in.
    public func policy(for method: MethodDescriptor) -> GRPCMethodPolicy<C>? {
        guard var policy = select(method) else { return nil }
        if policy.endpoint == nil { policy.endpoint = method.fullyQualifiedMethod }
        return policy
    }
}
#endif
