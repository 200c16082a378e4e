#if Postgres  // the trait; without it this module is empty
import Logging
import PostgresNIO
import RetryPolicyCore

/// Notifications that never arrive, and polling instead.
///
/// A pooler in transaction or statement mode (PgBouncer's
/// `pool_mode = transaction`, the usual setting in front of managed
/// databases) hands each statement to whichever server connection is free:
/// `LISTEN` registers on one of them and is forgotten, so `NOTIFY` reaches
/// nobody, and nothing reports an error. After each connection the store
/// sends a `NOTIFY` to itself from a second, short-lived connection (from
/// the listening one, a pooler that happens to hand both statements to the
/// same server connection would deliver it, and hide the problem); if it
/// has not come back within
/// ``PostgresStateConfiguration/notificationProbeTimeout``, the store says
/// why once (warning) and re-reads the cooldown and breaker rows of its
/// keys every ``PostgresStateConfiguration/pollInterval`` for as long as the
/// connection lasts. The budget needs no notifications: every withdrawal
/// is one statement, and refunds are written in batches either way.
extension PostgresRetryStateStore {
    /// A store's own test notification starts with this word; other stores
    /// on the channel ignore it (older ones log it as malformed and skip it).
    static let probeNotificationPrefix = SharedStateNotification.probePrefix

    /// Sends `probe` on the channel and waits for `heard`; if it stays
    /// unset past the probe timeout, polls until it is set or the
    /// connection's listening ends (this task is cancelled then).
    func watchNotifications(on connection: PostgresConnection, probe: String, heard: LockedBox<Bool>) async {
        let send: PostgresQuery = "SELECT pg_notify(\(Self.notificationChannel), \(probe))::text"
        // A second connection can be refused (a pooler's client limit); the
        // listening one then sends it, which still catches a pooler that
        // hands the statement to another server connection.
        let sender: PostgresConnection
        do {
            sender = try await connect()
        } catch {
            logger.debug(
                "shared state: no second connection for the test notification; sending it on the listening one",
                metadata: ["error": "\(Self.describe(error))"])
            sender = connection
        }
        let sent: Bool
        do {
            _ = try await Self.run(send, on: sender, logger: logger, timeout: configuration.connectTimeout)
            sent = true
        } catch {
            // The database is failing; the supervisor reconnects.
            logger.debug("shared state: test notification not sent", metadata: ["error": "\(Self.describe(error))"])
            sent = false
        }
        if sender !== connection { try? await sender.close() }
        guard sent else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + configuration.notificationProbeTimeout
        // The flag is set by the listening loop; checking it every 10 ms for
        // at most the probe timeout, once per connection, costs nothing.
        while !heard.value, clock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
            if Task.isCancelled { return }
        }
        if heard.value {
            counters.add(\.notificationProbesPassed)
            return
        }
        counters.add(\.notificationProbesFailed)
        let explained = state.withLock { state in
            defer { state.pollingExplained = true }
            return state.pollingExplained
        }
        let metadata: Logger.Metadata = [
            "database": "\(configuration.redactedURL)", "interval": "\(configuration.pollInterval)",
            "waited": "\(configuration.notificationProbeTimeout)",
        ]
        let reason = "shared state: a test NOTIFY did not come back, so LISTEN/NOTIFY does not work on this connection (a pooler in transaction or statement mode, such as PgBouncer, drops notifications); reading cooldowns and breakers every poll interval instead"
        if explained { logger.debug("\(reason)", metadata: metadata) } else { logger.warning("\(reason)", metadata: metadata) }
        while !Task.isCancelled, !heard.value {
            let keys = state.withLock { Array($0.keys.keys) }
            counters.add(\.polls)
            for key in keys {
                do {
                    try await readSharedState(key: key, on: connection)
                } catch {
                    logger.debug("shared state: poll failed", metadata: ["key": "\(key)", "error": "\(Self.describe(error))"])
                }
            }
            try? await Task.sleep(for: configuration.pollInterval)
        }
        if heard.value { logger.info("shared state: the test NOTIFY came back late; notifications work, polling stops") }
    }
}
#endif
