#if Postgres  // the trait; without it this module is empty
import Logging
import NIOCore
import PostgresNIO
import RetryPolicyCore

/// Budget payments in batches: the connection runs one statement at a
/// time, so the payments that arrive while one key's statement is in
/// flight go together in the next, one round trip for all of them. Each
/// waits at most `withdrawTimeout`, counted from when it was asked; a
/// statement that answers later still decides, and what it granted to a
/// payment that gave up is given back with the next refund.
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
    /// `withdrawTimeout`). The statements run on the connection's event
    /// loop, one batch after another, so a busy cooperative pool never
    /// delays them.
    func pay(
        _ kind: PaymentKind, cost: Int, key: String, capacity: Int, on connection: PostgresConnection
    ) async -> PaymentReply {
        let queueKey = PaymentQueueKey(key: key, kind: kind)
        let timeout = configuration.withdrawTimeout
        return await withCheckedContinuation { continuation in
            let (id, startsSending) = state.withLock { state -> (Int, Bool) in
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
            if startsSending { sendNextBatch(queueKey, on: connection) }
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

    /// Sends the payments waiting in the queue as one statement, then the
    /// ones that arrived meanwhile, until none wait.
    private func sendNextBatch(_ queueKey: PaymentQueueKey, on connection: PostgresConnection) {
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
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        let key = queueKey.key, kind = queueKey.kind
        let costs = batch.payments.map(\.cost)
        tokensBefore(kind, costs: costs, key: key, on: connection)
            .flatMap { [self] before -> EventLoopFuture<Int?> in
                if let before { return connection.eventLoop.makeSucceededFuture(before) }
                // No row yet: create it at full capacity, then pay.
                let create: EventLoopFuture<PostgresQueryResult> = connection.query(
                    """
                    INSERT INTO retry_policy_budget (key, capacity, tokens) VALUES (\(key), \(batch.capacity), \(batch.capacity))
                    ON CONFLICT (key) DO NOTHING
                    """, logger: logger)
                return create.flatMap { _ in self.tokensBefore(kind, costs: costs, key: key, on: connection) }
            }
            .whenComplete { [self] result in
                settle(batch.payments, kind: kind, key: key, tokensBefore: result)
                sendNextBatch(queueKey, on: connection)
            }
    }

    /// Answers each payment of a batch as the statement decided it: in
    /// order, from the row's tokens before it. A withdrawal granted to a
    /// payment that gave up meanwhile is given back.
    private func settle(
        _ payments: [(id: Int, cost: Int)], kind: PaymentKind, key: String, tokensBefore result: Result<Int?, any Error>
    ) {
        let before: Int
        switch result {
        case .success(let tokens?):
            before = tokens
        case .success(nil):
            for payment in payments { answer(payment.id, .unreachable("no row returned")) }
            return
        case .failure(let error):
            let reason = DisplayText.escaped(String(reflecting: error))
            for payment in payments { answer(payment.id, .unreachable(reason)) }
            return
        }
        var tokens = before
        var refused = false
        for payment in payments {
            switch kind {
            case .withdraw:
                // The statement grants the longest run of payments that
                // fits, in order.
                if !refused && payment.cost <= tokens {
                    tokens -= payment.cost
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
    }

    /// The payments' statement: the row's tokens before it, or `nil` when
    /// the key has no row.
    private func tokensBefore(
        _ kind: PaymentKind, costs: [Int], key: String, on connection: PostgresConnection
    ) -> EventLoopFuture<Int?> {
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
        return future.flatMapThrowing { result in
            guard let row = result.rows.first else { return nil }
            return try row.decode(Int.self)
        }
    }
}
#endif
