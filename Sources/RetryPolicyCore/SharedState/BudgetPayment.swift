/// A retry the shared retry budget must pay for before the request goes
/// on, when the budget's store may wait (a database): what
/// `RequestStateMachine.Action.payBudget` hands to a driver, which awaits
/// ``settle()`` and tells the machine the answer.
public struct BudgetPayment: Sendable {
    /// How the bucket is paid from: what the budget's style then makes of
    /// the answer is its own rule.
    public enum Kind: Hashable, Sendable {
        /// The retry takes its cost, or is refused (a token bucket).
        case withdraw
        /// The failure drains its cost, whatever is left (gRPC
        /// throttling, which then allows the retry only above its
        /// threshold).
        case drain
    }

    public let kind: Kind
    /// The tokens the retry costs.
    public let cost: Int
    public let budget: RetryBudget

    package init(kind: Kind, cost: Int, budget: RetryBudget) {
        self.kind = kind
        self.cost = cost
        self.budget = budget
    }

    /// Pays from the bucket the budget's store shares, waiting on the store
    /// as long as it takes (each store bounds it); `true` when the budget
    /// pays for the retry.
    public func settle() async -> Bool {
        await budget.configuration.rules.settle(self)
    }

    /// Pays from this process's view of the bucket, without waiting (the
    /// store shares the spend later); `true` when the budget pays.
    public func settleWithoutWaiting() -> Bool {
        budget.configuration.rules.settleWithoutWaiting(self)
    }
}
