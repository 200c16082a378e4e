#if Postgres  // the trait; without it this module is empty
import Logging
import Metrics
import NIOCore
import NIOPosix
import PostgresNIO
import RetryPolicyCore
import RetryPolicyMetricCatalogue

/// A `RetryStateStore` that shares retry budgets and cooldowns through
/// PostgreSQL, so that every process using the same database and key (a
/// fleet of workers behind one API key, the replicas of a service calling
/// one backend) spends one budget and respects one cooldown.
///
/// - A retry withdraws from the shared budget with one conditional
///   `UPDATE` that locks the key's row: atomic, never read-modify-write,
///   so the fleet never spends more than the capacity. The executor
///   awaits the answer (no thread waits), at most
///   ``PostgresStateConfiguration/withdrawTimeout``; withdrawals that
///   arrive while one is in flight go together in the next statement.
/// - Refunds from successes are summed per key and written every
///   ``PostgresStateConfiguration/refundInterval``; a success never waits
///   on the database.
/// - A cooldown recorded anywhere is written (only ever extended) and
///   pushed with `NOTIFY`; every store `LISTEN`s, applies it to its local
///   gates, and re-reads all cooldowns after each reconnection. Admission
///   reads only the local gate.
/// - A policy's circuit breaker shares its open state and its half-open
///   probe permits (see `PostgresRetryStateStore+Breaker.swift`): an opening anywhere is
///   adopted everywhere on the key, and at most `half_open_probes` probes
///   are out across the fleet.
/// - When the database is down, slow or restarted, the store falls back to
///   local state (fail open, or closed for the budget when configured),
///   logs and counts it, reconnects with backoff and re-synchronises. Failing
///   open, the database may also be down when the store starts.
/// - Behind a pooler that drops notifications (PgBouncer in transaction
///   mode), the store finds out with a `NOTIFY` to itself and polls the
///   cooldown and breaker rows instead.
/// - Nothing from a peer is trusted: notifications and rows are checked
///   and limited by each receiving policy's own bounds (the cooldown cap,
///   the breaker's longest break), and a malformed one is logged and
///   ignored.
/// - It is a swift-service-lifecycle `Service`: `run()` starts it and, on
///   graceful shutdown, writes what it kept before returning.
///   Nothing is locked, and probe permits lapse, so a process killed at
///   any moment leaves nothing that blocks the others for long.
public final class PostgresRetryStateStore: RetryStateStore {
    /// The version of the tables this store reads and writes.
    public static let schemaVersion = 1
    /// The `LISTEN`/`NOTIFY` channel cooldowns are pushed on.
    public static let notificationChannel = "retry_policy_cooldown"

    public let configuration: PostgresStateConfiguration
    let logger: Logger

    struct KeyState {
        var capacity: Int
        var budgets: [RetryBudget] = []
        var gates: [SharedGate] = []
        /// The latest cooldown end read for the key and when it was first
        /// read: the same end read again (a re-read row) is limited from
        /// that instant, so re-reading a row written beyond the cap does
        /// not push the cooldown on and on.
        var cooldownSeen: (until: Timestamp, at: Timestamp)?
        /// The same for the breaker's break.
        var breakSeen: (opening: Int64, until: Timestamp, at: Timestamp)?
        var breakers: [CircuitBreaker] = []
        /// The latest fleet opening number of the key's breaker seen here
        /// (0: none yet).
        var breakerOpening: Int64 = 0
        /// Per local breaker: the fleet opening number its current
        /// half-open period's probe permits were granted under.
        var probing: [ObjectIdentifier: Int64] = [:]
        /// Per local breaker: until when it rejects without asking, after
        /// finding every permit out.
        var claimAgain: [ObjectIdentifier: Timestamp] = [:]
    }

    /// A gate shared under a key, with the longest cooldown its policy
    /// takes from elsewhere.
    struct SharedGate {
        let gate: CooldownGate
        let longest: Duration
    }

    struct State {
        var connection: PostgresConnection?
        var keys: [String: KeyState] = [:]
        /// Refunds not yet written, per key.
        var pendingRefunds: [String: Int] = [:]
        /// Ratio budget deposits (and withdrawals decided without waiting)
        /// not yet written, per key and slot.
        var pendingRatioDeposits: [RatioDepositKey: Int] = [:]
        /// Budget payments waiting for their statement, per key and kind.
        var paymentQueues: [PaymentQueueKey: PaymentQueue] = [:]
        /// Those waiting for a payment's answer, by id.
        var paymentWaiters: [Int: CheckedContinuation<PaymentReply, Never>] = [:]
        var nextPaymentID = 0
        /// Cooldowns that could not be written yet, per key.
        var pendingCooldowns: [String: Pending<CooldownWrite>] = [:]
        /// Breaker openings that could not be written yet (the number of
        /// openings in a row), per key.
        var pendingOpenings: [String: Pending<OpeningWrite>] = [:]
        var tasks: [Task<Void, Never>] = []
        var started = false
        var stopped = false
        var ready: [CheckedContinuation<Void, Never>] = []
        var isReady = false
        /// Those waiting for ``shutdown()``, by an id that cancellation uses.
        var stopWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextStopWaiter = 0
        var isShutDown = false
        /// The driver's TLS setting, certificates loaded once at start.
        var tls: PostgresConnection.Configuration.TLS?
        /// Whether the tables were checked on some connection; a store that
        /// started without the database checks them on its first connection.
        var schemaChecked = false
        var createSchema = false
        /// Whether the fall-back to polling was explained in the log already.
        var pollingExplained = false
        /// Whether a refused notification or row was logged as a warning
        /// already (later ones go to the debug level).
        var refusalLogged = false
    }

    /// A cooldown or a breaker opening kept while the database cannot be
    /// written, until the reconnection publishes it.
    struct Pending<Value: Sendable>: Sendable {
        var until: Timestamp
        var value: Value
    }

    /// A cooldown to write: its error, and the longest cooldown of the
    /// policy that recorded it (a row beyond that is replaced).
    struct CooldownWrite: Sendable {
        var error: SDKError
        var longest: Duration
    }

    /// A breaker opening to write: the openings in a row, and the longest
    /// break of the breaker that opened (a row beyond that is replaced).
    struct OpeningWrite: Sendable {
        var openings: Int
        var longest: Duration
    }

    let state = LockedValue(State())
    let counters = Counters()
    let eventLoopGroup: any EventLoopGroup
    let fallbackCounter: Counter
    let reconnectCounter: Counter
    let roundTripCounter: Counter

    public init(
        configuration: PostgresStateConfiguration,
        logger: Logger = Logger(label: "retry-policy.state.postgres"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        fallbackCounter = Counter(label: MetricCatalogue.stateFallbacks.name)
        reconnectCounter = Counter(label: MetricCatalogue.stateReconnections.name)
        roundTripCounter = Counter(label: MetricCatalogue.stateRoundTrips.name)
    }

    /// Whether the store has a live connection now.
    public var isConnected: Bool { state.withLock { $0.connection.map { !$0.isClosed } ?? false } }

    // MARK: Deciders

    /// A decider for `policy` whose budget and cooldown are shared under
    /// `key` (by default the policy's name), registered so that cooldowns
    /// from elsewhere reach it, and synchronised with the database (the
    /// budget's row is created at full capacity if missing; an active
    /// cooldown is applied before this returns).
    public func decider(for policy: Policy, key: String? = nil) async -> RetryDecider {
        let decider = RetryDecider(policy: policy, store: self, key: key)
        await register(decider)
        return decider
    }

    /// Registers the shared budget and gate of `decider` (made with
    /// `RetryDecider(policy:store:key:)` over this store) and synchronises
    /// them.
    public func register(_ decider: RetryDecider) async {
        guard let key = decider.cooldown.key, decider.cooldown.store === self else { return }
        let budget = decider.budget.flatMap { $0.store === self ? $0 : nil }
        state.withLock { state in
            var entry = state.keys[key] ?? KeyState(capacity: budget?.configuration.capacity ?? 0)
            if let budget {
                entry.budgets.append(budget)
                entry.capacity = Swift.max(entry.capacity, budget.configuration.capacity)
            }
            entry.gates.append(SharedGate(gate: decider.cooldown, longest: SharedCooldown.longest(for: decider.policy)))
            if let breaker = decider.breaker, breaker.store === self, breaker.key == key,
                !entry.breakers.contains(where: { $0 === breaker })
            {
                entry.breakers.append(breaker)
            }
            state.keys[key] = entry
        }
        if let connection = liveConnection() { await synchronize(keys: [key], on: connection) }
    }
}
#endif
