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
public final class RetryBudget: Sendable {
    public let configuration: RetryBudgetConfiguration
    private let tokens: Atomic<Int>

    public init(configuration: RetryBudgetConfiguration) {
        self.configuration = configuration
        self.tokens = Atomic(Swift.max(configuration.capacity, 0))
    }

    /// Tokens left now.
    public var available: Int { tokens.load(ordering: .relaxed) }

    /// Takes `cost` tokens if that many are left. Never goes negative.
    public func withdraw(_ cost: Int) -> Bool {
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

    /// Returns `amount` tokens, never beyond capacity.
    public func deposit(_ amount: Int) {
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
}
