#if Postgres  // the trait; without it this module is empty
import RetryPolicyCore

extension PostgresRetryStateStore {
    /// Counts of what the store did, for tests, measurements and operators.
    public struct Statistics: Sendable, Hashable {
        /// Statements sent to the database after start-up.
        public var roundTrips = 0
        /// Retries paid for by the shared budget.
        public var sharedWithdrawals = 0
        /// Retries the shared budget refused.
        public var sharedRefusals = 0
        /// Batched refund statements.
        public var refundFlushes = 0
        /// Cooldowns written and notified.
        public var cooldownsPublished = 0
        /// Cooldowns from elsewhere that extended a local gate.
        public var cooldownsReceived = 0
        /// Decisions made on local state because the database could not
        /// answer in time.
        public var fallbacks = 0
        /// Connections made in the background: after one was lost, or after
        /// starting without the database.
        public var reconnections = 0
        /// Breaker openings written and notified.
        public var breakerOpeningsPublished = 0
        /// Openings and closings from elsewhere that changed a local breaker.
        public var breakerChangesReceived = 0
        /// Half-open probe permits the database granted.
        public var probePermitsGranted = 0
        /// Admissions refused because every probe permit was out.
        public var probePermitsRefused = 0
        /// Half-open probes admitted on the local breaker alone because
        /// the caller could not wait for a permit (the synchronous
        /// `admit`, a hedged copy, a simulation).
        public var probeClaimsNotWaited = 0
        /// Connections on which the store's test `NOTIFY` came back in time.
        public var notificationProbesPassed = 0
        /// Connections on which the store's test `NOTIFY` did not come back
        /// in time (a pooler that drops notifications), so it polled.
        public var notificationProbesFailed = 0
        /// Rounds of re-reading cooldowns and breakers in place of
        /// notifications.
        public var polls = 0
        /// Notifications and rows refused as malformed (and ignored).
        public var notificationsRefused = 0
    }

    public var statistics: Statistics { counters.snapshot }
}

/// The counters behind ``PostgresRetryStateStore/statistics``.
final class Counters: Sendable {
    private let values = LockedValue(PostgresRetryStateStore.Statistics())
    private let connectionIDs = AtomicInt64(0)

    func add(_ field: WritableKeyPath<PostgresRetryStateStore.Statistics, Int>) {
        values.withLock { $0[keyPath: field] += 1 }
    }

    var snapshot: PostgresRetryStateStore.Statistics { values.withLock { $0 } }

    func nextConnectionID() -> Int { Int(truncatingIfNeeded: connectionIDs.add(1, ordering: .relaxed).newValue) }
}
#endif
