/// The state requests under one policy share: the retry budget, the
/// Retry-After cooldown and the circuit breaker. The ledger a
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

    public init(budget: RetryBudget?, cooldown: CooldownGate, breaker: CircuitBreaker?) {
        self.budget = budget
        self.cooldown = cooldown
        self.breaker = breaker
    }

    /// Fresh state for `policy`, kept in this process: a full budget, no
    /// cooldown, a closed breaker.
    public convenience init(for policy: Policy) {
        self.init(
            budget: policy.budget.map(RetryBudget.init(configuration:)), cooldown: CooldownGate(),
            breaker: policy.breaker.map(CircuitBreaker.init(configuration:)))
    }

    /// State for `policy` shared through `store` under `key`.
    public convenience init(for policy: Policy, store: any RetryStateStore, key: String) {
        self.init(
            budget: policy.budget.map { RetryBudget(configuration: $0, store: store, key: key) },
            cooldown: CooldownGate(store: store, key: key),
            breaker: policy.breaker.map { CircuitBreaker(configuration: $0, store: store, key: key) })
    }
}
