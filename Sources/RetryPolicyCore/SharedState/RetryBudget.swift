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
    /// A ratio budget's expiring deposits (`nil` for the other styles,
    /// which keep their tokens in `tokens`).
    package let window: RatioBudgetWindow?

    public init(configuration: RetryBudgetConfiguration) {
        self.configuration = configuration
        self.key = nil
        self.store = nil
        self.tokens = AtomicInt64(Int64(Swift.max(configuration.capacity, 0)))
        self.window = Self.window(for: configuration.rules)
    }

    /// A bucket shared through `store` under `key`.
    public init(configuration: RetryBudgetConfiguration, store: any RetryStateStore, key: String) {
        self.configuration = configuration
        self.key = key
        self.store = store
        self.tokens = AtomicInt64(Int64(Swift.max(configuration.capacity, 0)))
        self.window = Self.window(for: configuration.rules)
    }

    /// A ratio budget's window of deposits; `nil` for the other styles.
    /// Out of line, on the style alone: Swift 6.3's optimizer crashes
    /// (CopyPropagation, "Found ownership error") on the same switch
    /// inlined into the initializers above.
    @inline(never)
    private static func window(for rules: RetryBudgetConfiguration.Rules) -> RatioBudgetWindow? {
        switch rules {
        case .ratio(let ratio): RatioBudgetWindow(window: ratio.window)
        case .tokenBucket, .grpc: nil
        }
    }

    /// Tokens left now (with a store: as last seen by this process); for
    /// a ratio budget, the thousandths of a retry it would pay now.
    public var available: Int {
        if let window, let ratio = configuration.ratio { return ratioBalance(ratio, window: window, at: nil) }
        return Int(truncatingIfNeeded: tokens.load(ordering: .relaxed))
    }

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

/// A ratio budget's ledger: deposits per request and withdrawals per
/// retry in an expiring window (`RatioRetryBudget`). With a store, the
/// store shares them; without, this process's window holds them.
extension RetryBudget {
    /// A request started at `now` (`nil`: the latest time seen): deposits
    /// `amount` thousandths of a retry.
    public func depositRequest(_ amount: Int, at now: Timestamp?) {
        if amount <= 0 { return }
        if let store { return store.depositRequest(amount, at: now, to: self) }
        depositRequestLocally(amount, at: now)
    }

    /// Withdraws `cost` thousandths for a retry at `now` if the reserve
    /// and the deposits in the window cover it. Never waits.
    public func withdrawRetry(_ cost: Int, at now: Timestamp?) -> Bool {
        if cost <= 0 { return true }
        if let store { return store.withdrawRetryWithoutWaiting(cost, at: now, from: self) }
        return withdrawRetryLocally(cost, at: now)
    }

    /// `withdrawRetry(_:at:)` from the window the store shares; may wait
    /// on the store.
    public func withdrawRetry(_ cost: Int, at now: Timestamp?) async -> Bool {
        if cost <= 0 { return true }
        if let store { return await store.withdrawRetry(cost, at: now, from: self) }
        return withdrawRetryLocally(cost, at: now)
    }

    /// Deposits in this process's window only.
    public func depositRequestLocally(_ amount: Int, at now: Timestamp?) {
        guard amount > 0, let window else { return }
        window.add(Int64(amount), at: window.slot(at: now))
    }

    /// Withdraws from this process's window only.
    public func withdrawRetryLocally(_ cost: Int, at now: Timestamp?) -> Bool {
        if cost <= 0 { return true }
        guard let window, let ratio = configuration.ratio else { return withdrawLocally(cost) }
        let slot = window.slot(at: now)
        let (balance, overflow) = Int64(ratio.reserve).addingReportingOverflow(window.balance(at: slot))
        guard overflow || balance >= Int64(cost) else { return false }
        window.add(-Int64(cost), at: slot)
        return true
    }

    /// The reserve plus what the window holds at `now`, never below 0.
    func ratioBalance(_ ratio: RatioRetryBudget, window: RatioBudgetWindow, at now: Timestamp?) -> Int {
        let (sum, overflow) = Int64(ratio.reserve).addingReportingOverflow(window.balance(at: window.slot(at: now)))
        return overflow ? Int.max : Int(truncatingIfNeeded: Swift.max(sum, 0))
    }
}
