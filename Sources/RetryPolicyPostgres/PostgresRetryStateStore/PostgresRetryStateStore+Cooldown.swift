#if Postgres  // the trait; without it this module is empty
import Logging
import NIOCore
import PostgresNIO
import RetryPolicyCore

extension PostgresRetryStateStore {
    public func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {
        guard let key = gate.key else { return }
        let longest = state.withLock { state in
            state.keys[key]?.gates.first(where: { $0.gate === gate })?.longest
        } ?? Backoff.ceiling
        let write = CooldownWrite(error: error, longest: longest)
        guard let connection = liveConnection() else {
            keepCooldown(key: key, until: until, write: write)
            return
        }
        publish(key: key, until: until, write: write, on: connection)
    }

    /// Writes the cooldown if it extends the key's row, or if the row ends
    /// further off than the recording policy's cap allows from now (a row
    /// no process under the policy could have written: a peer's, to be
    /// repaired rather than kept forever), then notifies.
    @discardableResult
    private func publish(key: String, until: Timestamp, write: CooldownWrite, on connection: PostgresConnection)
        -> EventLoopFuture<Void>
    {
        let error = write.error
        let status = error.statusCode.map(Int64.init)
        let furthest = (Self.wallClock() + write.longest).nanosecondsSince1970
        let query: PostgresQuery = """
            WITH up AS (
                INSERT INTO retry_policy_cooldown AS c (key, until_ns, kind, status)
                VALUES (\(key), \(until.nanosecondsSince1970), \(error.kind.rawValue), \(status))
                ON CONFLICT (key) DO UPDATE
                    SET until_ns = EXCLUDED.until_ns, kind = EXCLUDED.kind, status = EXCLUDED.status, updated_at = now()
                    WHERE c.until_ns < EXCLUDED.until_ns OR c.until_ns > \(furthest)
                RETURNING c.key, c.until_ns, c.kind, c.status)
            SELECT pg_notify(\(Self.notificationChannel),
                up.until_ns::text || ' ' || coalesce(up.status::text, '-') || ' ' || up.kind || ' ' || up.key)
            FROM up
            """
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        let written = connection.query(query, logger: logger)
        written.whenComplete { [self] result in
            switch result {
            case .success: counters.add(\.cooldownsPublished)
            case .failure(let failure):
                keepCooldown(key: key, until: until, write: write)
                logger.warning(
                    "shared state: cooldown not shared yet, kept for the reconnection",
                    metadata: ["key": "\(DisplayText.escaped(key))", "error": "\(Self.describe(failure))"])
            }
        }
        return written.map { _ in }
    }

    private func keepCooldown(key: String, until: Timestamp, write: CooldownWrite) {
        keep(Pending(until: until, value: write), key: key, in: \.pendingCooldowns)
    }

    /// Writes the cooldowns kept while disconnected and waits (each at most
    /// the connect timeout) until the database has them; one that fails is
    /// kept again.
    func publishPendingCooldowns(on connection: PostgresConnection) async {
        let writes = takePending(\.pendingCooldowns).map { key, cooldown in
            publish(key: key, until: cooldown.until, write: cooldown.value, on: connection)
        }
        for write in writes { _ = try? await Self.value(of: write, timeout: configuration.connectTimeout) }
    }

    /// Keeps what could not be written for the reconnection; of two for one
    /// key, the one that lasts longer.
    func keep<Value>(_ pending: Pending<Value>, key: String, in kept: WritableKeyPath<State, [String: Pending<Value>]> & Sendable) {
        counters.add(\.fallbacks)
        fallbackCounter.increment()
        state.withLock { state in
            if let earlier = state[keyPath: kept][key], earlier.until >= pending.until { return }
            state[keyPath: kept][key] = pending
        }
    }

    /// Takes everything kept for the reconnection.
    func takePending<Value>(_ kept: WritableKeyPath<State, [String: Pending<Value>]> & Sendable) -> [String: Pending<Value>] {
        state.withLock { state in
            defer { state[keyPath: kept] = [:] }
            return state[keyPath: kept]
        }
    }

    /// Applies a notification (``SharedStateNotification``); one that
    /// does not parse is logged and ignored.
    ///
    /// A breaker notification is taken as a hint that the key's row
    /// changed, and the row is read: any role that can connect may
    /// `NOTIFY`, and an opening number taken from a forged payload would
    /// make every later, real one look stale. Changing the row takes write
    /// access to the table, not only a connection.
    func apply(notification payload: String, on connection: PostgresConnection) async {
        switch SharedStateNotification.parse(payload) {
        case .success(.cooldown(let cooldown)): apply(cooldown)
        case .success(.breaker(let change)):
            do {
                try await synchronizeBreaker(key: change.key, on: connection)
            } catch {
                logger.debug(
                    "shared state: breaker row not read after a notification",
                    metadata: ["key": "\(DisplayText.escaped(change.key))", "error": "\(Self.describe(error))"])
            }
        case .success(.probe): break  // another store's test of its own connection
        case .failure(let problem): ignore(payload, because: problem)
        }
    }

    /// Logs a notification or row that was refused: a warning the first
    /// time, then at debug level (a peer sending garbage in a loop must
    /// not flood the log), its text escaped and cut short.
    func ignore(_ text: String, because problem: SharedStateNotification.Problem) {
        let first = state.withLock { state in
            defer { state.refusalLogged = true }
            return !state.refusalLogged
        }
        counters.add(\.notificationsRefused)
        let shown = text.utf8.count <= 120 ? text : String(decoding: text.utf8.prefix(120), as: UTF8.self) + "... (\(text.utf8.count) bytes)"
        logger.log(
            level: first ? .warning : .debug, "shared state: ignoring a malformed notification or row",
            metadata: ["payload": "\(DisplayText.escaped(shown))", "problem": "\(problem)"])
    }

    /// Applies a cooldown from elsewhere (a notification or the key's
    /// row) to the key's gates, each limited to its own policy's cap.
    func apply(_ cooldown: SharedCooldown) {
        let now = Self.wallClock()
        let limited = state.withLock { state -> [(CooldownGate, SharedCooldown)] in
            guard var entry = state.keys[cooldown.key] else { return [] }
            var since = now
            if let seen = entry.cooldownSeen, seen.until == cooldown.until {
                since = seen.at
            } else {
                entry.cooldownSeen = (cooldown.until, now)
                state.keys[cooldown.key] = entry
            }
            return entry.gates.map { ($0.gate, cooldown.limited(to: $0.longest, at: since)) }
        }
        var extended = false
        for (gate, cooldown) in limited {
            let error = SDKError(kind: cooldown.kind, statusCode: cooldown.status)
            if gate.apply(until: cooldown.until, error: error) { extended = true }
        }
        if extended { counters.add(\.cooldownsReceived) }
    }
}
#endif
