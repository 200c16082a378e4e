#if Postgres  // the trait; without it this module is empty
import Logging
import NIOCore
import PostgresNIO
import RetryPolicyCore

extension PostgresRetryStateStore {
    public func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {
        guard let key = gate.key else { return }
        guard let connection = liveConnection() else {
            keepCooldown(key: key, until: until, error: error)
            return
        }
        publish(key: key, until: until, error: error, on: connection)
    }

    @discardableResult
    private func publish(key: String, until: Timestamp, error: SDKError, on connection: PostgresConnection) -> EventLoopFuture<Void> {
        let status = error.statusCode.map(Int64.init)
        let query: PostgresQuery = """
            WITH up AS (
                INSERT INTO retry_policy_cooldown AS c (key, until_ns, kind, status)
                VALUES (\(key), \(until.nanosecondsSince1970), \(error.kind.rawValue), \(status))
                ON CONFLICT (key) DO UPDATE
                    SET until_ns = EXCLUDED.until_ns, kind = EXCLUDED.kind, status = EXCLUDED.status, updated_at = now()
                    WHERE c.until_ns < EXCLUDED.until_ns
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
                keepCooldown(key: key, until: until, error: error)
                logger.warning(
                    "shared state: cooldown not shared yet, kept for the reconnection",
                    metadata: ["key": "\(key)", "error": "\(Self.describe(failure))"])
            }
        }
        return written.map { _ in }
    }

    private func keepCooldown(key: String, until: Timestamp, error: SDKError) {
        keep(Pending(until: until, value: error), key: key, in: \.pendingCooldowns)
    }

    /// Writes the cooldowns kept while disconnected and waits (each at most
    /// the connect timeout) until the database has them; one that fails is
    /// kept again.
    func publishPendingCooldowns(on connection: PostgresConnection) async {
        let writes = takePending(\.pendingCooldowns).map { key, cooldown in
            publish(key: key, until: cooldown.until, error: cooldown.value, on: connection)
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

    /// Applies a notification: `UNTIL_NS STATUS KIND KEY`.
    func apply(notification payload: String) {
        if payload.hasPrefix(Self.breakerNotificationPrefix) {
            applyBreaker(notification: payload)
            return
        }
        // Another store's test of its own connection.
        if payload.hasPrefix(Self.probeNotificationPrefix) { return }
        let parts = payload.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let until = Int64(parts[0]) else {
            logger.debug("shared state: ignoring a malformed notification", metadata: ["payload": "\(payload)"])
            return
        }
        apply(key: String(parts[3]), until: until, kind: String(parts[2]), status: Int(parts[1]))
    }

    func apply(key: String, until: Int64, kind: String, status: Int?) {
        let gates = state.withLock { $0.keys[key]?.gates ?? [] }
        let error = SDKError(kind: SDKError.Kind(rawValue: kind), statusCode: status)
        var extended = false
        for gate in gates where gate.apply(until: Timestamp(nanosecondsSince1970: until), error: error) { extended = true }
        if extended { counters.add(\.cooldownsReceived) }
    }
}
#endif
