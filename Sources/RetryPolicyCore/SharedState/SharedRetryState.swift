/// The state requests under one policy share: the retry budget, the
/// Retry-After cooldown, the circuit breaker and the adaptive rate limiter. The ledger a
/// ``RetryDecider`` writes to, apart from the rules it reads
/// (``CompiledPolicy``, which never changes).
///
/// One ledger is shared by every request that should affect the others:
/// every request of a process, or with a ``RetryStateStore`` a whole fleet.
/// Requests that must not affect each other (separate clients in a
/// simulation) each take a ledger of their own under the same compiled
/// rules: `RetryDecider(compiled:state:)`.
///
/// Every member is lock-free or briefly locked, so deciding never blocks;
/// a store decides where the state is kept and whether paying may wait.
public final class SharedRetryState: Sendable {
    /// The token bucket, when the policy has a budget.
    public let budget: RetryBudget?
    /// The server-directed cooldown.
    public let cooldown: CooldownGate
    /// The circuit breaker, when the policy has one.
    public let breaker: CircuitBreaker?
    /// The adaptive rate limiter, when the policy has a `rate_limit`. It is
    /// kept in this process, also when a store shares the rest.
    public let rateLimiter: AdaptiveRateLimiter?

    public init(
        budget: RetryBudget?, cooldown: CooldownGate, breaker: CircuitBreaker?, rateLimiter: AdaptiveRateLimiter? = nil
    ) {
        self.budget = budget
        self.cooldown = cooldown
        self.breaker = breaker
        self.rateLimiter = rateLimiter
    }

    /// Fresh state for `policy`, kept in this process: a full budget, no
    /// cooldown, a closed breaker.
    public convenience init(for policy: Policy) {
        self.init(
            budget: policy.budget.map(RetryBudget.init(configuration:)), cooldown: CooldownGate(),
            breaker: policy.breaker.map(CircuitBreaker.init(configuration:)),
            rateLimiter: policy.rateLimit.map { AdaptiveRateLimiter(configuration: $0) })
    }

    /// State for `policy` shared through `store` under `key`.
    public convenience init(for policy: Policy, store: any RetryStateStore, key: String) {
        self.init(
            budget: policy.budget.map { RetryBudget(configuration: $0, store: store, key: key) },
            cooldown: CooldownGate(store: store, key: key),
            breaker: policy.breaker.map { CircuitBreaker(configuration: $0, store: store, key: key) },
            rateLimiter: policy.rateLimit.map { AdaptiveRateLimiter(configuration: $0) })
    }
}
