#if Postgres  // the trait; without it this module is empty
import Logging
import PostgresNIO
import RetryPolicyCore

extension PostgresRetryStateStore {
    public func withdraw(_ cost: Int, from budget: RetryBudget) -> Bool {
        guard let key = budget.key else { return budget.withdrawLocally(cost) }
        guard let connection = liveConnection() else {
            return fallBack(from: budget, reason: "disconnected") ? budget.withdrawLocally(cost) : false
        }
        let capacity = Swift.max(budget.configuration.capacity, 0)
        if cost > capacity { return false }
        let query: PostgresQuery = """
            INSERT INTO retry_policy_budget AS b (key, capacity, tokens) VALUES (\(key), \(capacity), \(capacity - cost))
            ON CONFLICT (key) DO UPDATE SET tokens = b.tokens - \(cost), updated_at = now()
            WHERE b.tokens >= \(cost)
            RETURNING b.tokens
            """
        // If the database grants the withdrawal after the wait, the tokens
        // were taken but not used: give them back with the next refund.
        switch run(query, on: connection, refundIfGrantedLate: (cost, key)) {
        case .tokens(let tokens):
            counters.add(\.sharedWithdrawals)
            budget.synchronize(available: tokens)
            return true
        case .noRow:
            counters.add(\.sharedRefusals)
            budget.synchronize(available: Swift.min(budget.available, cost - 1))
            return false
        case .unreachable(let reason):
            return fallBack(from: budget, reason: reason) ? budget.withdrawLocally(cost) : false
        }
    }

    /// One conditional statement, like a withdrawal: the row's tokens drop
    /// by `cost` but never below zero, and the new count decides. gRPC-style
    /// throttling counts tokens in thousandths, so the integer column holds
    /// fractional refunds exactly.
    public func drain(_ cost: Int, from budget: RetryBudget) -> Int {
        guard let key = budget.key else { return budget.drainLocally(cost) }
        // Failing open records the failure locally; failing closed
        // throttles (no tokens).
        guard let connection = liveConnection() else {
            return fallBack(from: budget, reason: "disconnected") ? budget.drainLocally(cost) : 0
        }
        let capacity = Swift.max(budget.configuration.capacity, 0)
        let query: PostgresQuery = """
            INSERT INTO retry_policy_budget AS b (key, capacity, tokens) VALUES (\(key), \(capacity), GREATEST(\(capacity) - \(cost), 0))
            ON CONFLICT (key) DO UPDATE SET tokens = GREATEST(b.tokens - \(cost), 0), updated_at = now()
            RETURNING b.tokens
            """
        // The failure is recorded whether or not the statement lands late;
        // nothing to give back.
        switch run(query, on: connection, refundIfGrantedLate: nil) {
        case .tokens(let tokens):
            counters.add(\.sharedWithdrawals)
            budget.synchronize(available: tokens)
            return tokens
        case .noRow:
            return fallBack(from: budget, reason: "no row returned") ? budget.drainLocally(cost) : 0
        case .unreachable(let reason):
            return fallBack(from: budget, reason: reason) ? budget.drainLocally(cost) : 0
        }
    }

    public func deposit(_ amount: Int, to budget: RetryBudget) {
        budget.depositLocally(amount)
        guard let key = budget.key else { return }
        addRefund(amount, key: key)
    }

    /// What one budget statement answered within `withdrawTimeout`.
    private enum BudgetReply {
        /// The row's tokens after the statement.
        case tokens(Int)
        /// No row: the statement's condition refused it.
        case noRow
        /// An error, or no answer in time.
        case unreachable(String)
    }

    /// Runs a budget statement that returns the row's tokens and waits for
    /// it at most `withdrawTimeout`. If the statement returns a row after
    /// the wait gave up, `refundIfGrantedLate` is added to the next refund.
    private func run(
        _ query: PostgresQuery, on connection: PostgresConnection, refundIfGrantedLate refund: (cost: Int, key: String)?
    ) -> BudgetReply {
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        let future = connection.query(query, logger: logger)
        switch BoundedWait.wait(for: future, timeout: configuration.withdrawTimeout) {
        case .value(let result):
            if let row = result.rows.first, let tokens = try? row.decode(Int.self) { return .tokens(tokens) }
            return .noRow
        case .failure(let error):
            return .unreachable(DisplayText.escaped(String(reflecting: error)))
        case .timedOut:
            if let refund {
                future.whenSuccess { [self] result in
                    if !result.rows.isEmpty { addRefund(refund.cost, key: refund.key) }
                }
            }
            return .unreachable("timed out after \(configuration.withdrawTimeout)")
        }
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

    private func addRefund(_ amount: Int, key: String) {
        state.withLock { state in
            let capacity = state.keys[key]?.capacity ?? Int.max
            state.pendingRefunds[key] = Swift.min(capacity, state.pendingRefunds[key, default: 0] &+ amount)
        }
    }

    func flushRefundsPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.refundInterval)
            if Task.isCancelled { break }
            if let connection = liveConnection() { await flushRefunds(on: connection) }
        }
    }

    func flushRefunds(on connection: PostgresConnection) async {
        let pending = state.withLock { state in
            defer { state.pendingRefunds = [:] }
            return state.pendingRefunds
        }
        for (key, amount) in pending where amount > 0 {
            let capacity = state.withLock { $0.keys[key]?.capacity } ?? amount
            let query: PostgresQuery = """
                INSERT INTO retry_policy_budget AS b (key, capacity, tokens) VALUES (\(key), \(capacity), \(capacity))
                ON CONFLICT (key) DO UPDATE SET tokens = LEAST(b.capacity, b.tokens + \(amount)), updated_at = now()
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
