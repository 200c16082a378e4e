/// A retry the shared retry budget must pay for before the request goes
/// on, when the budget's store may wait (a database): what
/// `RequestStateMachine.Action.payBudget` hands to a driver, which awaits
/// ``settle()`` and tells the machine the answer.
public struct BudgetPayment: Sendable {
    /// How the budget's style pays for a retry.
    public enum Kind: Hashable, Sendable {
        /// A token bucket: the retry takes its cost, or is refused.
        case withdraw
        /// gRPC throttling: the failure drains its cost, and the retry
        /// goes ahead only while more than the threshold remains.
        case drain
    }

    public let kind: Kind
    /// The tokens the retry costs.
    public let cost: Int
    public let budget: RetryBudget

    public init(kind: Kind, cost: Int, budget: RetryBudget) {
        self.kind = kind
        self.cost = cost
        self.budget = budget
    }

    /// Pays from the bucket the budget's store shares, waiting on the store
    /// as long as it takes (each store bounds it); `true` when the budget
    /// pays for the retry.
    public func settle() async -> Bool {
        switch kind {
        case .withdraw: await budget.withdraw(cost)
        case .drain: await budget.drain(cost) > budget.configuration.threshold
        }
    }

    /// Pays from this process's view of the bucket, without waiting (the
    /// store shares the spend later); `true` when the budget pays.
    public func settleWithoutWaiting() -> Bool {
        switch kind {
        case .withdraw: budget.withdraw(cost)
        case .drain: budget.drain(cost) > budget.configuration.threshold
        }
    }
}
