#if Postgres  // the trait; without it this module is empty
import Logging
import PostgresNIO
import RetryPolicyCore

/// Ratio budgets shared through the database: one row per key holding the
/// window's ten slots (`retry_policy_ratio`: the slot numbers and the
/// thousandths of a retry in each), as the process's `RatioBudgetWindow`
/// holds them. A retry withdraws with one conditional upsert, which locks
/// the row and checks the reserve plus the live slots on its latest
/// version, so the fleet's check and withdrawal are one atomic step;
/// deposits are added up here and written with the refunds.
extension PostgresRetryStateStore {
    /// What the next flush adds to a key's slot.
    struct RatioDepositKey: Hashable, Sendable {
        var key: String
        var slot: Int64
    }

    public func depositRequest(_ amount: Int, at now: Timestamp?, to budget: RetryBudget) {
        budget.depositRequestLocally(amount, at: now)
        guard let key = budget.key, let window = budget.window else { return }
        addRatioDeposit(amount, key: key, slot: window.slot(at: now))
    }

    /// Decided on this process's window; the withdrawal reaches the shared
    /// row with the next flush, as a negative deposit.
    public func withdrawRetryWithoutWaiting(_ cost: Int, at now: Timestamp?, from budget: RetryBudget) -> Bool {
        guard budget.withdrawRetryLocally(cost, at: now) else { return false }
        if let key = budget.key, let window = budget.window { addRatioDeposit(-cost, key: key, slot: window.slot(at: now)) }
        return true
    }

    public func withdrawRetry(_ cost: Int, at now: Timestamp?, from budget: RetryBudget) async -> Bool {
        guard let key = budget.key, let window = budget.window, let ratio = budget.configuration.ratio else {
            return budget.withdrawRetryLocally(cost, at: now)
        }
        guard let connection = liveConnection() else {
            return ratioFallBack(key: key, reason: "disconnected") ? budget.withdrawRetryLocally(cost, at: now) : false
        }
        let slot = window.slot(at: now)
        let count = Int64(RatioBudgetWindow.slotCount)
        let index = Int(slot % count)
        let reserve = Int64(ratio.reserve)
        // A key without a row starts one holding this withdrawal when the
        // reserve alone pays for it.
        let granted = reserve >= Int64(cost)
        var slots = [Int64](repeating: -1, count: Int(count))
        var amounts = [Int64](repeating: 0, count: Int(count))
        slots[index] = slot
        amounts[index] = granted ? -Int64(cost) : 0
        let position = index + 1
        let row = RatioRow(slot: slot, position: position)
        // A row that is not ten slots (another writer's) counts as empty
        // and is started over, as a key without a row is.
        let query: PostgresQuery = """
            INSERT INTO retry_policy_ratio AS r (key, slots, amounts) VALUES (\(key), \(slots), \(amounts))
            ON CONFLICT (key) DO UPDATE
            SET amounts = CASE WHEN \(unescaped: RatioRow.wellFormed) THEN
                        \(unescaped: row.before("amounts")) || (\(unescaped: row.keptAmount) - \(Int64(cost))) || \(unescaped: row.after("amounts"))
                    ELSE EXCLUDED.amounts END,
                slots = CASE WHEN \(unescaped: RatioRow.wellFormed) THEN
                        \(unescaped: row.before("slots")) || \(unescaped: row.keptSlot) || \(unescaped: row.after("slots"))
                    ELSE EXCLUDED.slots END,
                updated_at = now()
            WHERE \(reserve) + (CASE WHEN \(unescaped: RatioRow.wellFormed) THEN \(unescaped: row.liveSum) ELSE 0 END) >= \(Int64(cost))
            RETURNING (r.xmax = 0) AS inserted
            """
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        do {
            let rows = try await Self.run(query, on: connection, logger: logger, timeout: configuration.withdrawTimeout)
            guard let row = rows.first else {
                counters.add(\.sharedRefusals)
                return false
            }
            let inserted = (try? row.decode(Bool.self)) ?? false
            guard !inserted || granted else {
                counters.add(\.sharedRefusals)
                return false
            }
            counters.add(\.sharedWithdrawals)
            // This process's window follows the fleet's spend, so that a
            // fallback decides on it.
            window.add(-Int64(cost), at: slot)
            return true
        } catch {
            return ratioFallBack(key: key, reason: DisplayText.escaped(String(reflecting: error)))
                ? budget.withdrawRetryLocally(cost, at: now) : false
        }
    }

    private func ratioFallBack(key: String, reason: String) -> Bool {
        counters.add(\.fallbacks)
        fallbackCounter.increment()
        logger.warning(
            "shared state: ratio retry budget unreachable, deciding on local state",
            metadata: ["key": "\(key)", "reason": "\(reason)", "mode": "\(configuration.failureMode.rawValue)"])
        switch configuration.failureMode {
        case .open: return true
        case .closed: return false
        }
    }

    /// Adds `amount` (negative: a withdrawal decided without waiting) to
    /// what the next flush writes for `key`'s slot `slot`, saturating.
    func addRatioDeposit(_ amount: Int, key: String, slot: Int64) {
        state.withLock { state in
            let entry = RatioDepositKey(key: key, slot: slot)
            let (sum, overflow) = state.pendingRatioDeposits[entry, default: 0].addingReportingOverflow(amount)
            state.pendingRatioDeposits[entry] = overflow ? (amount < 0 ? Int.min : Int.max) : sum
        }
    }

    /// Writes the deposits added up since the last flush, one upsert per
    /// key and slot; a deposit for a slot the row has already moved past
    /// has expired and is dropped.
    func flushRatioDeposits(on connection: PostgresConnection) async {
        let pending = state.withLock { state in
            defer { state.pendingRatioDeposits = [:] }
            return state.pendingRatioDeposits
        }
        let count = Int64(RatioBudgetWindow.slotCount)
        for (entry, amount) in pending where amount != 0 {
            let index = Int(entry.slot % count)
            let position = index + 1
            var slots = [Int64](repeating: -1, count: Int(count))
            var amounts = [Int64](repeating: 0, count: Int(count))
            slots[index] = entry.slot
            let written = RatioRow.clamped(Int64(amount))
            amounts[index] = written
            let row = RatioRow(slot: entry.slot, position: position)
            // A deposit for a slot the row has moved past has expired.
            let query: PostgresQuery = """
                INSERT INTO retry_policy_ratio AS r (key, slots, amounts) VALUES (\(entry.key), \(slots), \(amounts))
                ON CONFLICT (key) DO UPDATE
                SET amounts = CASE WHEN \(unescaped: RatioRow.wellFormed) THEN
                            \(unescaped: row.before("amounts"))
                            || (CASE WHEN \(unescaped: row.heldSlot) > \(entry.slot) THEN \(unescaped: row.keptAmount)
                                     ELSE \(unescaped: row.keptAmount) + \(written) END)
                            || \(unescaped: row.after("amounts"))
                        ELSE EXCLUDED.amounts END,
                    slots = CASE WHEN \(unescaped: RatioRow.wellFormed) THEN
                            \(unescaped: row.before("slots")) || \(unescaped: row.keptSlot) || \(unescaped: row.after("slots"))
                        ELSE EXCLUDED.slots END,
                    updated_at = now()
                """
            counters.add(\.roundTrips)
            roundTripCounter.increment()
            do {
                _ = try await Self.run(query, on: connection, logger: logger, timeout: configuration.connectTimeout)
            } catch {
                addRatioDeposit(amount, key: entry.key, slot: entry.slot)
                logger.debug("shared state: ratio deposit not written, kept for later", metadata: ["key": "\(entry.key)", "error": "\(error)"])
            }
        }
    }
}

/// What the ratio queries take from a `retry_policy_ratio` row, which any
/// role with write access can change: nothing a store could not have
/// written. A row is used only when both arrays are one-dimensional, ten
/// long and indexed from 1; a slot counts only at its own place (slot
/// number modulo ten) and when it is no more than a window ahead of the
/// writer's; an amount is cut to the process window's range
/// (`RatioBudgetWindow`'s ±2^39 thousandths) and a missing one is 0, so
/// sums and the arithmetic on them cannot overflow a bigint.
struct RatioRow {
    /// The most a slot holds, either way: `RatioBudgetWindow`'s.
    static let maximumAmount: Int64 = (1 << 39) - 1
    static let slotCount = Int64(RatioBudgetWindow.slotCount)

    static let wellFormed = """
        (array_ndims(r.slots) = 1 AND array_ndims(r.amounts) = 1 AND array_lower(r.slots, 1) = 1 \
        AND array_lower(r.amounts, 1) = 1 AND cardinality(r.slots) = \(slotCount) AND cardinality(r.amounts) = \(slotCount))
        """

    static func clamped(_ amount: Int64) -> Int64 { Swift.min(Swift.max(amount, -maximumAmount), maximumAmount) }

    static func clampedSQL(_ expression: String) -> String {
        "LEAST(GREATEST(COALESCE(\(expression), 0), \(-maximumAmount)), \(maximumAmount))"
    }

    /// The writer's slot and its place in the arrays (1-based).
    var slot: Int64
    var position: Int

    /// The slot the row holds at this place, when it is one a store could
    /// have written: not past one window after the writer's; otherwise
    /// (and when missing) -1, older than any.
    var heldSlot: String {
        "(CASE WHEN r.slots[\(position)] <= \(slot + Self.slotCount) THEN r.slots[\(position)] ELSE -1 END)"
    }

    /// The amount kept at this place: the row's, cut to range, when its
    /// slot is the writer's or a later one; otherwise 0 (expired).
    var keptAmount: String {
        "(CASE WHEN \(heldSlot) >= \(slot) THEN \(Self.clampedSQL("r.amounts[\(position)]")) ELSE 0 END)"
    }

    var keptSlot: String { "GREATEST(\(heldSlot), \(slot))" }

    /// The elements of `column` before and after this place.
    func before(_ column: String) -> String { "r.\(column)[1:\(position - 1)]" }
    func after(_ column: String) -> String { "r.\(column)[\(position + 1):\(Self.slotCount)]" }

    /// The live slots' amounts, each at its own place and cut to range.
    var liveSum: String {
        """
        (SELECT COALESCE(SUM(\(Self.clampedSQL("u.amount"))), 0) FROM unnest(r.slots, r.amounts) WITH ORDINALITY AS u(slot, amount, place) \
        WHERE u.slot > \(slot - Self.slotCount) AND u.slot <= \(slot) AND u.slot % \(Self.slotCount) = u.place - 1)
        """
    }
}
#endif
