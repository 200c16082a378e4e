#if Postgres  // the trait; without it this module is empty
import Logging
import PostgresNIO
import RetryPolicyCore

extension PostgresRetryStateStore {
    /// Withdrawals and drains go to the database, awaited: the executor
    /// waits for them as the request state machine asks, never blocking
    /// a thread.
    public var paymentsWait: Bool { true }

    public func withdraw(_ cost: Int, from budget: RetryBudget) async -> Bool {
        guard let key = budget.key else { return budget.withdrawLocally(cost) }
        let capacity = Swift.max(budget.configuration.capacity, 0)
        if cost > capacity { return false }
        guard let connection = liveConnection() else {
            return fallBack(from: budget, reason: "disconnected") ? budget.withdrawLocally(cost) : false
        }
        switch await pay(.withdraw, cost: cost, key: key, capacity: capacity, on: connection) {
        case .paid(let tokens):
            counters.add(\.sharedWithdrawals)
            budget.synchronize(available: tokens)
            return true
        case .refused(let tokens):
            counters.add(\.sharedRefusals)
            budget.synchronize(available: tokens)
            return false
        case .unreachable(let reason):
            return fallBack(from: budget, reason: reason) ? budget.withdrawLocally(cost) : false
        }
    }

    /// gRPC-style throttling counts tokens in thousandths, so the integer
    /// column holds fractional refunds exactly.
    public func drain(_ cost: Int, from budget: RetryBudget) async -> Int {
        guard let key = budget.key else { return budget.drainLocally(cost) }
        // Failing open records the failure locally; failing closed
        // throttles (no tokens).
        guard let connection = liveConnection() else {
            return fallBack(from: budget, reason: "disconnected") ? budget.drainLocally(cost) : 0
        }
        let capacity = Swift.max(budget.configuration.capacity, 0)
        switch await pay(.drain, cost: cost, key: key, capacity: capacity, on: connection) {
        case .paid(let tokens), .refused(let tokens):
            counters.add(\.sharedWithdrawals)
            budget.synchronize(available: tokens)
            return tokens
        case .unreachable(let reason):
            return fallBack(from: budget, reason: reason) ? budget.drainLocally(cost) : 0
        }
    }

    /// Decided on this process's view; the spend reaches the shared row
    /// with the next refund flush (a negative refund).
    public func withdrawWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Bool {
        guard budget.withdrawLocally(cost) else { return false }
        if let key = budget.key { addRefund(-cost, key: key) }
        return true
    }

    public func drainWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Int {
        let before = budget.available
        let left = budget.drainLocally(cost)
        if let key = budget.key, before > left { addRefund(left - before, key: key) }
        return left
    }

    public func deposit(_ amount: Int, to budget: RetryBudget) {
        budget.depositLocally(amount)
        guard let key = budget.key else { return }
        addRefund(amount, key: key)
    }

    /// Counts and logs a budget the database could not decide on; true when
    /// the store fails open (the local budget decides), false when it fails
    /// closed (refuse).
    private func fallBack(from budget: RetryBudget, reason: String) -> Bool {
        counters.add(\.fallbacks)
        fallbackCounter.increment()
        logger.warning(
            "shared state: retry budget unreachable, deciding on local state",
            metadata: ["key": "\(budget.key ?? "")", "reason": "\(reason)", "mode": "\(configuration.failureMode.rawValue)"])
        switch configuration.failureMode {
        case .open: return true
        case .closed: return false
        }
    }

    /// Adds `amount` (negative: a spend decided without waiting) to what
    /// the next flush writes for `key`, within the bucket's capacity
    /// either way.
    func addRefund(_ amount: Int, key: String) {
        state.withLock { state in
            let capacity = state.keys[key]?.capacity ?? Int.max
            let sum = state.pendingRefunds[key, default: 0].addingReportingOverflow(amount)
            let total = sum.overflow ? (amount < 0 ? Int.min : Int.max) : sum.partialValue
            state.pendingRefunds[key] = Swift.min(capacity, Swift.max(-capacity, total))
        }
    }

    func flushRefundsPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.refundInterval)
            if Task.isCancelled { break }
            if let connection = liveConnection() {
                await flushRefunds(on: connection)
                await flushRatioDeposits(on: connection)
            }
        }
    }

    func flushRefunds(on connection: PostgresConnection) async {
        let pending = state.withLock { state in
            defer { state.pendingRefunds = [:] }
            return state.pendingRefunds
        }
        for (key, amount) in pending where amount != 0 {
            let capacity = state.withLock { $0.keys[key]?.capacity } ?? Swift.max(amount, 0)
            let created = Swift.max(0, Swift.min(capacity, capacity + amount))
            let query: PostgresQuery = """
                INSERT INTO retry_policy_budget AS b (key, capacity, tokens) VALUES (\(key), \(capacity), \(created))
                ON CONFLICT (key) DO UPDATE SET tokens = GREATEST(LEAST(b.capacity, b.tokens + \(amount)), 0), updated_at = now()
                RETURNING b.tokens
                """
            counters.add(\.roundTrips)
            roundTripCounter.increment()
            do {
                let rows = try await Self.run(query, on: connection, logger: logger, timeout: configuration.connectTimeout)
                counters.add(\.refundFlushes)
                if let tokens = try? rows.first?.decode(Int.self) { synchronizeBudgets(key: key, tokens: tokens) }
            } catch {
                addRefund(amount, key: key)
                logger.debug("shared state: refund not written, kept for later", metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
    }

    func synchronizeBudgets(key: String, tokens: Int) {
        let budgets = state.withLock { $0.keys[key]?.budgets ?? [] }
        for budget in budgets { budget.synchronize(available: tokens) }
    }
}
#endif
