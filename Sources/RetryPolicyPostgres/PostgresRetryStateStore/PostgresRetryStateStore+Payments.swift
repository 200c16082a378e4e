#if Postgres  // the trait; without it this module is empty
import Logging
import NIOCore
import PostgresNIO
import RetryPolicyCore

/// Budget payments in batches: the connection runs one statement at a
/// time, so the payments that arrive while one key's statement is in
/// flight go together in the next, one round trip for all of them. Each
/// waits at most `withdrawTimeout`, counted from when it was asked.
extension PostgresRetryStateStore {
    /// What a payment asks of a key's row.
    enum PaymentKind: Hashable, Sendable {
        /// Take the cost, or nothing when fewer tokens remain.
        case withdraw
        /// Take the cost, or what is left.
        case drain
    }

    /// The database's answer to one payment.
    enum PaymentReply: Sendable {
        /// Paid; the row's tokens after it.
        case paid(Int)
        /// Refused (a withdrawal only); the row's tokens.
        case refused(Int)
        /// An error, or no answer in time.
        case unreachable(String)
    }

    struct PaymentQueueKey: Hashable, Sendable {
        var key: String
        var kind: PaymentKind
    }

    /// The payments of one key and kind waiting for their statement.
    struct PaymentQueue {
        var waiting: [(id: Int, cost: Int)] = []
        var capacity = 0
        /// Whether a statement of this queue is in flight (its sender
        /// takes the payments waiting when it returns).
        var sending = false
    }

    /// The most payments one statement carries.
    static let paymentBatchLimit = 1024

    /// Asks the row for `cost` and waits for the answer (at most
    /// `withdrawTimeout`).
    func pay(
        _ kind: PaymentKind, cost: Int, key: String, capacity: Int, on connection: PostgresConnection
    ) async -> PaymentReply {
        let queueKey = PaymentQueueKey(key: key, kind: kind)
        let timeout = configuration.withdrawTimeout
        return await withCheckedContinuation { continuation in
            let (id, startsSender) = state.withLock { state -> (Int, Bool) in
                let id = state.nextPaymentID
                state.nextPaymentID &+= 1
                state.paymentWaiters[id] = continuation
                var queue = state.paymentQueues[queueKey] ?? PaymentQueue()
                queue.waiting.append((id, cost))
                queue.capacity = Swift.max(queue.capacity, capacity)
                let starts = !queue.sending
                queue.sending = true
                state.paymentQueues[queueKey] = queue
                return (id, starts)
            }
            connection.eventLoop.scheduleTask(in: timeout.timeAmount) { [self] in
                answer(id, .unreachable("timed out after \(timeout)"))
            }
            if startsSender {
                Task { await sendPayments(queueKey, on: connection) }
            }
        }
    }

    /// Resumes payment `id` with `reply` unless it was answered already;
    /// returns whether it was still waiting.
    @discardableResult
    func answer(_ id: Int, _ reply: PaymentReply) -> Bool {
        guard let continuation = state.withLock({ $0.paymentWaiters.removeValue(forKey: id) }) else { return false }
        continuation.resume(returning: reply)
        return true
    }

    /// Sends the queue's payments, a batch at a time, until none wait.
    private func sendPayments(_ queueKey: PaymentQueueKey, on connection: PostgresConnection) async {
        while true {
            let batch = state.withLock { state -> (payments: [(id: Int, cost: Int)], capacity: Int)? in
                guard var queue = state.paymentQueues[queueKey] else { return nil }
                // Those that gave up already need no statement.
                queue.waiting.removeAll { state.paymentWaiters[$0.id] == nil }
                if queue.waiting.isEmpty {
                    state.paymentQueues[queueKey] = nil
                    return nil
                }
                let taken = Array(queue.waiting.prefix(Self.paymentBatchLimit))
                queue.waiting.removeFirst(taken.count)
                state.paymentQueues[queueKey] = queue
                return (taken, queue.capacity)
            }
            guard let batch else { return }
            await send(batch.payments, kind: queueKey.kind, key: queueKey.key, capacity: batch.capacity, on: connection)
        }
    }

    /// One statement for `payments`, in order: the row's tokens before it
    /// decide each payment, in the same way as the statement does.
    private func send(
        _ payments: [(id: Int, cost: Int)], kind: PaymentKind, key: String, capacity: Int,
        on connection: PostgresConnection
    ) async {
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        let costs = payments.map(\.cost)
        do {
            var before = try await tokensBefore(kind, costs: costs, key: key, on: connection)
            if before == nil {
                // No row yet: create it at full capacity, then pay.
                try await Self.run(
                    """
                    INSERT INTO retry_policy_budget (key, capacity, tokens) VALUES (\(key), \(capacity), \(capacity))
                    ON CONFLICT (key) DO NOTHING
                    """, on: connection, logger: logger, timeout: configuration.withdrawTimeout)
                before = try await tokensBefore(kind, costs: costs, key: key, on: connection)
            }
            guard let before else {
                for payment in payments { answer(payment.id, .unreachable("no row returned")) }
                return
            }
            var tokens = before
            var refused = false
            for payment in payments {
                switch kind {
                case .withdraw:
                    // The statement grants the longest run of payments
                    // that fits, in order.
                    if !refused && payment.cost <= tokens {
                        tokens -= payment.cost
                        // Granted to one that gave up: give it back.
                        if !answer(payment.id, .paid(tokens)) { addRefund(payment.cost, key: key) }
                    } else {
                        refused = true
                        answer(payment.id, .refused(tokens))
                    }
                case .drain:
                    tokens = Swift.max(tokens - payment.cost, 0)
                    answer(payment.id, .paid(tokens))
                }
            }
        } catch {
            let reason = DisplayText.escaped(String(reflecting: error))
            for payment in payments { answer(payment.id, .unreachable(reason)) }
        }
    }

    /// Runs the payments' statement and returns the row's tokens before
    /// it, or `nil` when the key has no row. A statement that answers
    /// after the timeout still took what it granted; the refund gives it
    /// back then.
    private func tokensBefore(
        _ kind: PaymentKind, costs: [Int], key: String, on connection: PostgresConnection
    ) async throws -> Int? {
        let query: PostgresQuery
        switch kind {
        case .withdraw:
            query = """
                WITH wanted AS (
                    SELECT (SUM(cost) OVER (ORDER BY position))::bigint AS total
                    FROM unnest(\(costs)::bigint[]) WITH ORDINALITY AS payment(cost, position)
                ), current AS (
                    SELECT tokens FROM retry_policy_budget WHERE key = \(key) FOR UPDATE
                ), taken AS (
                    SELECT COALESCE(MAX(wanted.total), 0) AS amount FROM wanted, current WHERE wanted.total <= current.tokens
                )
                UPDATE retry_policy_budget AS b SET tokens = b.tokens - taken.amount, updated_at = now()
                FROM taken WHERE b.key = \(key)
                RETURNING (b.tokens + taken.amount)::bigint
                """
        case .drain:
            let total = costs.reduce(0) { $0.addingReportingOverflow($1).overflow ? Int.max : $0 + $1 }
            query = """
                WITH current AS (
                    SELECT tokens FROM retry_policy_budget WHERE key = \(key) FOR UPDATE
                )
                UPDATE retry_policy_budget AS b SET tokens = GREATEST(b.tokens - \(total), 0), updated_at = now()
                FROM current WHERE b.key = \(key)
                RETURNING current.tokens::bigint
                """
        }
        let future: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
        do {
            let rows = try await Self.value(of: future, timeout: configuration.withdrawTimeout).rows
            guard let row = rows.first else { return nil }
            return try row.decode(Int.self)
        } catch is TimedOut {
            if kind == .withdraw {
                // Whatever the late statement granted went to payments that
                // were answered as unreachable: give it back.
                future.whenSuccess { [self] result in
                    guard let before = try? result.rows.first?.decode(Int.self) else { return }
                    var taken = 0
                    for cost in costs {
                        guard taken + cost <= before else { break }
                        taken += cost
                    }
                    if taken > 0 { addRefund(taken, key: key) }
                }
            }
            throw TimedOut()
        }
    }
}
#endif
