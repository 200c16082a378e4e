/// The live token bucket. Lock-free: withdrawals and refunds are
/// compare-and-swap loops on one atomic integer, so deciding never blocks.
///
/// With a ``RetryStateStore`` the bucket is shared under ``key`` by everyone
/// using that store (for instance a whole fleet); the atomic integer is
/// then this process's view of it, which the store keeps current and falls
/// back to when the shared bucket cannot be reached.
public final class RetryBudget: Sendable {
    public let configuration: RetryBudgetConfiguration
    /// The key the bucket is shared under, when it has a store.
    public let key: String?
    /// Where the bucket is shared; `nil` keeps it in this process.
    public let store: (any RetryStateStore)?
    private let tokens: AtomicInt64

    public init(configuration: RetryBudgetConfiguration) {
        self.configuration = configuration
        self.key = nil
        self.store = nil
        self.tokens = AtomicInt64(Int64(Swift.max(configuration.capacity, 0)))
    }

    /// A bucket shared through `store` under `key`.
    public init(configuration: RetryBudgetConfiguration, store: any RetryStateStore, key: String) {
        self.configuration = configuration
        self.key = key
        self.store = store
        self.tokens = AtomicInt64(Int64(Swift.max(configuration.capacity, 0)))
    }

    /// Tokens left now (with a store: as last seen by this process).
    public var available: Int { Int(truncatingIfNeeded: tokens.load(ordering: .relaxed)) }

    /// Whether paying from this bucket may wait on its store (a
    /// database): then the request state machine hands the payment to its
    /// driver to await (`RequestStateMachine.Action.payBudget`).
    package var paymentsWait: Bool { store?.paymentsWait ?? false }

    /// Takes `cost` tokens if that many are left. Never goes negative and
    /// never waits: with a store whose payments wait, decided on this
    /// process's view (the store shares the spend later).
    package func withdraw(_ cost: Int) -> Bool {
        if cost <= 0 { return true }
        if let store { return store.withdrawWithoutWaiting(cost, from: self) }
        return withdrawLocally(cost)
    }

    /// Takes `cost` tokens if that many are left, from the bucket the store
    /// shares (atomic across its sharers); may wait on the store.
    package func withdraw(_ cost: Int) async -> Bool {
        if cost <= 0 { return true }
        if let store { return await store.withdraw(cost, from: self) }
        return withdrawLocally(cost)
    }

    /// Takes `cost` tokens, or all that are left when fewer remain, and
    /// returns how many remain (gRPC throttling records a failure so).
    /// Never waits, like the synchronous `withdraw(_:)`.
    package func drain(_ cost: Int) -> Int {
        if cost <= 0 { return available }
        if let store { return store.drainWithoutWaiting(cost, from: self) }
        return drainLocally(cost)
    }

    /// `drain(_:)` from the bucket the store shares; may wait
    /// on the store.
    package func drain(_ cost: Int) async -> Int {
        if cost <= 0 { return available }
        if let store { return await store.drain(cost, from: self) }
        return drainLocally(cost)
    }

    /// Returns `amount` tokens, never beyond capacity.
    package func deposit(_ amount: Int) {
        if amount <= 0 { return }
        if let store { return store.deposit(amount, to: self) }
        depositLocally(amount)
    }

    /// Takes `cost` tokens from this process's bucket only.
    public func withdrawLocally(_ cost: Int) -> Bool {
        if cost <= 0 { return true }
        let cost = Int64(cost)
        var current = tokens.load(ordering: .relaxed)
        while true {
            if current < cost { return false }
            let (exchanged, original) = tokens.compareExchange(
                expected: current, desired: current - cost, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Takes `cost` tokens (or what is left) from this process's bucket
    /// only; returns the tokens left. Never goes negative.
    public func drainLocally(_ cost: Int) -> Int {
        if cost <= 0 { return available }
        let cost = Int64(cost)
        var current = tokens.load(ordering: .relaxed)
        while true {
            let desired = Swift.max(current - cost, 0)
            let (exchanged, original) = tokens.compareExchange(
                expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return Int(truncatingIfNeeded: desired) }
            current = original
        }
    }

    /// Returns `amount` tokens to this process's bucket only.
    public func depositLocally(_ amount: Int) {
        if amount <= 0 { return }
        let amount = Int64(amount)
        let capacity = Int64(configuration.capacity)
        var current = tokens.load(ordering: .relaxed)
        while true {
            let desired = Swift.min(capacity, current &+ amount)
            if desired == current { return }
            let (exchanged, original) = tokens.compareExchange(
                expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Sets this process's view to `available` tokens (clamped to
    /// `0...capacity`): what a store does when it learns the shared value.
    public func synchronize(available: Int) {
        tokens.store(Int64(Swift.min(Swift.max(available, 0), Swift.max(configuration.capacity, 0))), ordering: .relaxed)
    }
}
