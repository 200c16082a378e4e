import Synchronization

/// The numbers of a retry budget: a token bucket shared by every request
/// under one policy, as in the AWS SDKs' standard retry quota.
///
/// During an outage every retry spends tokens and nothing refunds them, so
/// a fleet's retries stop after a bounded number instead of multiplying the
/// load on a struggling server.
public struct RetryBudgetConfiguration: Hashable, Sendable {
    public var capacity: Int
    /// Tokens one retry costs.
    public var retryCost: Int
    /// Tokens a retry after a timeout costs (timeouts suggest an overloaded
    /// server, so they drain the bucket faster).
    public var timeoutRetryCost: Int
    /// Tokens a success that needed no retry gives back. A success after
    /// retries gives back what its last retry cost.
    public var successRefund: Int
    public var location: SourceLocation?

    public init(
        capacity: Int = 500,
        retryCost: Int = 5,
        timeoutRetryCost: Int = 10,
        successRefund: Int = 1,
        location: SourceLocation? = nil
    ) {
        self.capacity = capacity
        self.retryCost = retryCost
        self.timeoutRetryCost = timeoutRetryCost
        self.successRefund = successRefund
        self.location = location
    }

    /// How many retries in a row a full bucket pays for with no success in
    /// between.
    public var consecutiveRetries: Int { retryCost > 0 ? capacity / retryCost : Int.max }
    /// The same for retries after timeouts.
    public var consecutiveTimeoutRetries: Int { timeoutRetryCost > 0 ? capacity / timeoutRetryCost : Int.max }
}

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
    private let tokens: Atomic<Int>

    public init(configuration: RetryBudgetConfiguration) {
        self.configuration = configuration
        self.key = nil
        self.store = nil
        self.tokens = Atomic(Swift.max(configuration.capacity, 0))
    }

    /// A bucket shared through `store` under `key`.
    public init(configuration: RetryBudgetConfiguration, store: any RetryStateStore, key: String) {
        self.configuration = configuration
        self.key = key
        self.store = store
        self.tokens = Atomic(Swift.max(configuration.capacity, 0))
    }

    /// Tokens left now (with a store: as last seen by this process).
    public var available: Int { tokens.load(ordering: .relaxed) }

    /// Takes `cost` tokens if that many are left. Never goes negative.
    public func withdraw(_ cost: Int) -> Bool {
        if cost <= 0 { return true }
        if let store { return store.withdraw(cost, from: self) }
        return withdrawLocally(cost)
    }

    /// Returns `amount` tokens, never beyond capacity.
    public func deposit(_ amount: Int) {
        if amount <= 0 { return }
        if let store { return store.deposit(amount, to: self) }
        depositLocally(amount)
    }

    /// Takes `cost` tokens from this process's bucket only.
    public func withdrawLocally(_ cost: Int) -> Bool {
        if cost <= 0 { return true }
        var current = tokens.load(ordering: .relaxed)
        while true {
            if current < cost { return false }
            let (exchanged, original) = tokens.compareExchange(
                expected: current, desired: current - cost, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Returns `amount` tokens to this process's bucket only.
    public func depositLocally(_ amount: Int) {
        if amount <= 0 { return }
        var current = tokens.load(ordering: .relaxed)
        while true {
            let desired = Swift.min(configuration.capacity, current &+ amount)
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
        tokens.store(Swift.min(Swift.max(available, 0), Swift.max(configuration.capacity, 0)), ordering: .relaxed)
    }
}
