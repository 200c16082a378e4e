#if Postgres  // the trait; without it this module is empty
import Logging
import Metrics
import NIOCore
import NIOPosix
import PostgresNIO
import RetryPolicyCore

/// A `RetryStateStore` that shares retry budgets and cooldowns through
/// PostgreSQL, so that every process using the same database and key (a
/// fleet of workers behind one API key, the replicas of a service calling
/// one backend) spends one budget and respects one cooldown.
///
/// - A retry withdraws from the shared budget with one conditional
///   `INSERT ... ON CONFLICT DO UPDATE ... WHERE tokens >= cost RETURNING`:
///   atomic, never read-modify-write, so the fleet never spends more than
///   the capacity. It waits at most
///   ``PostgresStateConfiguration/withdrawTimeout`` for the answer.
/// - Refunds from successes are summed per key and written every
///   ``PostgresStateConfiguration/refundInterval``; a success never waits
///   on the database.
/// - A cooldown recorded anywhere is written (only ever extended) and
///   pushed with `NOTIFY`; every store `LISTEN`s, applies it to its local
///   gates, and re-reads all cooldowns after each reconnection. Admission
///   reads only the local gate.
/// - A policy's circuit breaker shares its open state and its half-open
///   probe permits (see `PostgresBreaker.swift`): an opening anywhere is
///   adopted everywhere on the key, and at most `half_open_probes` probes
///   are out across the fleet.
/// - When the database is down, slow or restarted, the store falls back to
///   local state (fail open, or closed for the budget when configured),
///   logs and counts it, reconnects with backoff and re-synchronises.
///   Nothing is locked, and probe permits lapse, so a process killed at
///   any moment leaves nothing that blocks the others for long.
public final class PostgresRetryStateStore: RetryStateStore {
    /// The version of the tables this store reads and writes.
    public static let schemaVersion = 1
    /// The `LISTEN`/`NOTIFY` channel cooldowns are pushed on.
    public static let notificationChannel = "retry_policy_cooldown"

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
        /// Connections made after the first.
        public var reconnections = 0
        /// Breaker openings written and notified.
        public var breakerOpeningsPublished = 0
        /// Openings and closings from elsewhere that changed a local breaker.
        public var breakerChangesReceived = 0
        /// Half-open probe permits the database granted.
        public var probePermitsGranted = 0
        /// Admissions refused because every probe permit was out.
        public var probePermitsRefused = 0
    }

    public let configuration: PostgresStateConfiguration
    let logger: Logger

    struct KeyState {
        var capacity: Int
        var budgets: [RetryBudget] = []
        var gates: [CooldownGate] = []
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

    struct State {
        var connection: PostgresConnection?
        var keys: [String: KeyState] = [:]
        /// Refunds not yet written, per key.
        var pendingRefunds: [String: Int] = [:]
        /// Cooldowns that could not be written yet, per key.
        var pendingCooldowns: [String: Pending<SDKError>] = [:]
        /// Breaker openings that could not be written yet (the number of
        /// openings in a row), per key.
        var pendingOpenings: [String: Pending<Int>] = [:]
        var tasks: [Task<Void, Never>] = []
        var stopped = false
        var ready: [CheckedContinuation<Void, Never>] = []
        var isReady = false
    }

    /// A cooldown or a breaker opening kept while the database cannot be
    /// written, until the reconnection publishes it.
    struct Pending<Value: Sendable>: Sendable {
        var until: Timestamp
        var value: Value
    }

    let state = LockedValue(State())
    let counters = Counters()
    private let eventLoopGroup: any EventLoopGroup
    let fallbackCounter: Counter
    private let reconnectCounter: Counter
    let roundTripCounter: Counter

    public init(
        configuration: PostgresStateConfiguration,
        logger: Logger = Logger(label: "retry-policy.state.postgres"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        fallbackCounter = Counter(label: "retry_policy_state_fallbacks_total")
        reconnectCounter = Counter(label: "retry_policy_state_reconnections_total")
        roundTripCounter = Counter(label: "retry_policy_state_round_trips_total")
    }

    public var statistics: Statistics { counters.snapshot }

    /// Whether the store has a live connection now.
    public var isConnected: Bool { state.withLock { $0.connection.map { !$0.isClosed } ?? false } }

    // MARK: Life cycle

    /// Connects, checks (or with `createSchema`, first creates) the tables,
    /// starts listening for cooldowns, and starts the refund writer and the
    /// reconnection loop. Fails, within the connect timeout, if the server
    /// cannot be reached or the tables are missing; after a successful
    /// start, no failure of the database is ever thrown again.
    public func start(createSchema: Bool = false) async throws(PostgresStateError) {
        let connection = try await connectOrThrow()
        do throws(PostgresStateError) {
            if createSchema { try await Self.createSchema(on: connection, logger: logger, timeout: configuration.connectTimeout) }
            try await Self.verifySchema(on: connection, logger: logger, timeout: configuration.connectTimeout)
        } catch {
            try? await connection.close()
            throw error
        }
        let supervisor = Task { [self] in await supervise(firstConnection: connection) }
        let flusher = Task { [self] in await flushRefundsPeriodically() }
        state.withLock { $0.tasks += [supervisor, flusher] }
        // Listening and the first synchronisation, bounded.
        let ready = await withTaskGroup(of: Bool.self) { group in
            group.addTask { [self] in
                await waitUntilReady()
                return true
            }
            group.addTask { [timeout = configuration.connectTimeout] in
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            markReady()  // release the waiter if the timeout won
            return first
        }
        if !ready { logger.warning("shared state: listening did not start within the connect timeout; continuing") }
    }

    /// Writes outstanding refunds and cooldowns (bounded by the connect
    /// timeout) and closes the connection.
    public func shutdown() async {
        let connection = state.withLock { state in
            state.stopped = true
            return state.connection
        }
        if let connection, !connection.isClosed {
            await flushRefunds(on: connection)
            await publishPendingCooldowns(on: connection)
            publishPendingOpenings(on: connection)
        }
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        let last = state.withLock { state in
            defer { state.connection = nil }
            return state.connection
        }
        try? await (last ?? connection)?.close()
        markReady()
    }

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
            entry.gates.append(decider.cooldown)
            if let breaker = decider.breaker, breaker.store === self, breaker.key == key,
                !entry.breakers.contains(where: { $0 === breaker })
            {
                entry.breakers.append(breaker)
            }
            state.keys[key] = entry
        }
        if let connection = liveConnection() { await synchronize(keys: [key], on: connection) }
    }

    // MARK: RetryStateStore

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

    public func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {
        guard let key = gate.key else { return }
        guard let connection = liveConnection() else {
            keepCooldown(key: key, until: until, error: error)
            return
        }
        publish(key: key, until: until, error: error, on: connection)
    }

    // MARK: Budget

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
            return .unreachable(String(reflecting: error))
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

    private func flushRefundsPeriodically() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.refundInterval)
            if Task.isCancelled { break }
            if let connection = liveConnection() { await flushRefunds(on: connection) }
        }
    }

    private func flushRefunds(on connection: PostgresConnection) async {
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

    private func synchronizeBudgets(key: String, tokens: Int) {
        let budgets = state.withLock { $0.keys[key]?.budgets ?? [] }
        for budget in budgets { budget.synchronize(available: tokens) }
    }

    // MARK: Cooldown

    private func publish(key: String, until: Timestamp, error: SDKError, on connection: PostgresConnection) {
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
        connection.query(query, logger: logger).whenComplete { [self] result in
            switch result {
            case .success: counters.add(\.cooldownsPublished)
            case .failure(let failure):
                keepCooldown(key: key, until: until, error: error)
                logger.warning(
                    "shared state: cooldown not shared yet, kept for the reconnection",
                    metadata: ["key": "\(key)", "error": "\(Self.describe(failure))"])
            }
        }
    }

    private func keepCooldown(key: String, until: Timestamp, error: SDKError) {
        keep(Pending(until: until, value: error), key: key, in: \.pendingCooldowns)
    }

    private func publishPendingCooldowns(on connection: PostgresConnection) async {
        for (key, cooldown) in takePending(\.pendingCooldowns) {
            publish(key: key, until: cooldown.until, error: cooldown.value, on: connection)
        }
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
        let parts = payload.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let until = Int64(parts[0]) else {
            logger.debug("shared state: ignoring a malformed notification", metadata: ["payload": "\(payload)"])
            return
        }
        apply(key: String(parts[3]), until: until, kind: String(parts[2]), status: Int(parts[1]))
    }

    private func apply(key: String, until: Int64, kind: String, status: Int?) {
        let gates = state.withLock { $0.keys[key]?.gates ?? [] }
        let error = SDKError(kind: SDKError.Kind(rawValue: kind), statusCode: status)
        var extended = false
        for gate in gates where gate.apply(until: Timestamp(nanosecondsSince1970: until), error: error) { extended = true }
        if extended { counters.add(\.cooldownsReceived) }
    }

    // MARK: Synchronisation

    /// Creates missing budget rows and applies the cooldowns of `keys`.
    private func synchronize(keys: [String], on connection: PostgresConnection) async {
        for key in keys {
            let capacity = state.withLock { $0.keys[key]?.capacity } ?? 0
            do {
                if capacity > 0 {
                    let ensure: PostgresQuery = """
                        INSERT INTO retry_policy_budget AS b (key, capacity, tokens) VALUES (\(key), \(capacity), \(capacity))
                        ON CONFLICT (key) DO UPDATE SET capacity = GREATEST(b.capacity, EXCLUDED.capacity)
                        RETURNING b.tokens
                        """
                    let rows = try await Self.run(ensure, on: connection, logger: logger, timeout: configuration.connectTimeout)
                    if let tokens = try? rows.first?.decode(Int.self) { synchronizeBudgets(key: key, tokens: tokens) }
                }
                let read: PostgresQuery = "SELECT until_ns, kind, status FROM retry_policy_cooldown WHERE key = \(key)"
                let rows = try await Self.run(read, on: connection, logger: logger, timeout: configuration.connectTimeout)
                for row in rows {
                    let (until, kind, status) = try row.decode((Int64, String, Int?).self)
                    apply(key: key, until: until, kind: kind, status: status)
                }
                try await synchronizeBreaker(key: key, on: connection)
            } catch {
                logger.warning(
                    "shared state: could not synchronise", metadata: ["key": "\(key)", "error": "\(String(reflecting: error))"])
            }
        }
    }

    // MARK: Connection

    func liveConnection() -> PostgresConnection? {
        state.withLock { state in
            guard let connection = state.connection, !connection.isClosed else { return nil }
            return connection
        }
    }

    private func connectOrThrow() async throws(PostgresStateError) -> PostgresConnection {
        do {
            return try await connect()
        } catch {
            throw .connectionFailed(configuration.redactedURL, Self.describe(error))
        }
    }

    private func connect() async throws -> PostgresConnection {
        var postgres = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: .disable)
        postgres.options.connectTimeout = configuration.connectTimeout.timeAmount
        let id = counters.nextConnectionID()
        let future: EventLoopFuture<PostgresConnection> = PostgresConnection.connect(
            on: eventLoopGroup.next(), configuration: postgres, id: id, logger: logger)
        // The driver's connect timeout covers the TCP connection; this one
        // also bounds a server that accepts and then never answers.
        do {
            return try await Self.value(of: future, timeout: configuration.connectTimeout)
        } catch let error as TimedOut {
            future.whenSuccess { connection in Self.closeInBackground(connection) }
            throw error
        }
    }

    /// Keeps one connection listening; on loss, reconnects with doubling
    /// pauses and re-synchronises every registered key.
    private func supervise(firstConnection: PostgresConnection) async {
        var connection: PostgresConnection? = firstConnection
        var delay = configuration.reconnectDelay
        while !Task.isCancelled {
            if connection == nil {
                do {
                    connection = try await connect()
                    counters.add(\.reconnections)
                    reconnectCounter.increment()
                    logger.info("shared state: reconnected", metadata: ["database": "\(configuration.redactedURL)"])
                    delay = configuration.reconnectDelay
                } catch {
                    logger.debug("shared state: reconnection failed", metadata: ["error": "\(Self.describe(error))"])
                    try? await Task.sleep(for: delay)
                    delay = Swift.min(delay * 2, configuration.maximumReconnectDelay)
                    continue
                }
            }
            guard let current = connection else { continue }
            await listen(on: current)
            state.withLock { state in
                if state.connection === current { state.connection = nil }
            }
            try? await current.close()
            connection = nil
            if Task.isCancelled || state.withLock({ $0.stopped }) { break }
            logger.warning("shared state: connection lost; deciding on local state until it is back")
        }
    }

    /// Listens on `connection` until it closes (or the store stops):
    /// once `LISTEN` is in place, makes the connection the one statements
    /// use, re-reads every registered key and writes what was kept.
    private func listen(on connection: PostgresConnection) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                do {
                    try await connection.listen(on: Self.notificationChannel) { notifications in
                        let keys = state.withLock { state in
                            state.connection = connection
                            return Array(state.keys.keys)
                        }
                        await synchronize(keys: keys, on: connection)
                        await publishPendingCooldowns(on: connection)
                        publishPendingOpenings(on: connection)
                        markReady()
                        for try await notification in notifications { apply(notification: notification.payload) }
                    }
                } catch {
                    if !Task.isCancelled {
                        logger.debug("shared state: listening ended", metadata: ["error": "\(Self.describe(error))"])
                    }
                }
            }
            group.addTask { try? await connection.closeFuture.get() }
            await group.next()
            // Closing ends whichever of the two is still waiting.
            Self.closeInBackground(connection)
            group.cancelAll()
        }
    }

    private func waitUntilReady() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.isReady || state.stopped { return true }
                state.ready.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func markReady() {
        let waiting = state.withLock { state in
            state.isReady = true
            defer { state.ready = [] }
            return state.ready
        }
        for continuation in waiting { continuation.resume() }
    }

    // MARK: Schema

    /// Creates the tables if they are missing. Idempotent and safe to run
    /// from many processes at once (serialised by an advisory lock);
    /// records the schema version.
    public func createSchema() async throws(PostgresStateError) {
        let connection = try await connectOrThrow()
        do throws(PostgresStateError) {
            try await Self.createSchema(on: connection, logger: logger, timeout: configuration.connectTimeout)
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
    }

    static func createSchema(on connection: PostgresConnection, logger: Logger, timeout: Duration) async throws(PostgresStateError) {
        let statements: [PostgresQuery] = [
            "BEGIN",
            "SELECT pg_advisory_xact_lock(7263554351)",
            """
            CREATE TABLE IF NOT EXISTS retry_policy_schema (
                id integer PRIMARY KEY CHECK (id = 1),
                version integer NOT NULL)
            """,
            """
            CREATE TABLE IF NOT EXISTS retry_policy_budget (
                key text PRIMARY KEY,
                capacity integer NOT NULL CHECK (capacity >= 0),
                tokens integer NOT NULL CHECK (tokens >= 0),
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS retry_policy_cooldown (
                key text PRIMARY KEY,
                until_ns bigint NOT NULL,
                kind text NOT NULL,
                status integer,
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            """
            CREATE TABLE IF NOT EXISTS retry_policy_breaker (
                key text PRIMARY KEY,
                opening bigint NOT NULL,
                state text NOT NULL CHECK (state IN ('open', 'closed')),
                until_ns bigint NOT NULL,
                openings integer NOT NULL CHECK (openings >= 0),
                probes integer NOT NULL DEFAULT 0 CHECK (probes >= 0),
                successes integer NOT NULL DEFAULT 0 CHECK (successes >= 0),
                probes_until_ns bigint NOT NULL DEFAULT 0,
                updated_at timestamptz NOT NULL DEFAULT now())
            """,
            "INSERT INTO retry_policy_schema (id, version) VALUES (1, \(schemaVersion)) ON CONFLICT (id) DO NOTHING",
            "COMMIT",
        ]
        do {
            for statement in statements { _ = try await run(statement, on: connection, logger: logger, timeout: timeout) }
        } catch {
            _ = try? await run("ROLLBACK", on: connection, logger: logger, timeout: timeout)
            throw .queryFailed(describe(error))
        }
    }

    static func verifySchema(on connection: PostgresConnection, logger: Logger, timeout: Duration) async throws(PostgresStateError) {
        do {
            let query: PostgresQuery = """
                SELECT to_regclass('retry_policy_schema') IS NOT NULL,
                       to_regclass('retry_policy_budget') IS NOT NULL,
                       to_regclass('retry_policy_cooldown') IS NOT NULL,
                       to_regclass('retry_policy_breaker') IS NOT NULL
                """
            let rows = try await run(query, on: connection, logger: logger, timeout: timeout)
            guard let row = rows.first else { throw PostgresStateError.queryFailed("no answer to the schema check") }
            let (schema, budget, cooldown, breaker) = try row.decode((Bool, Bool, Bool, Bool).self)
            if !schema { throw PostgresStateError.schemaMissing("retry_policy_schema") }
            if !budget { throw PostgresStateError.schemaMissing("retry_policy_budget") }
            if !cooldown { throw PostgresStateError.schemaMissing("retry_policy_cooldown") }
            if !breaker { throw PostgresStateError.schemaMissing("retry_policy_breaker") }
            let versionRows = try await run(
                "SELECT version FROM retry_policy_schema WHERE id = 1", on: connection, logger: logger, timeout: timeout)
            let version = try versionRows.first?.decode(Int.self) ?? 0
            if version > schemaVersion { throw PostgresStateError.schemaTooNew(found: version, supported: schemaVersion) }
        } catch let error as PostgresStateError {
            throw error
        } catch {
            throw .queryFailed(describe(error))
        }
    }

    // MARK: Helpers

    /// Runs `query` and collects its rows, giving up after `timeout`.
    static func run(
        _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger, timeout: Duration
    ) async throws -> [PostgresRow] {
        try await value(of: connection.query(query, logger: logger), timeout: timeout).rows
    }

    struct TimedOut: Error, CustomStringConvertible {
        var description: String { "timed out" }
    }

    /// The value of `future`, or ``TimedOut`` after `timeout`, whichever
    /// comes first; the wait never outlives the timeout, whatever the
    /// future does.
    static func value<T: Sendable>(of future: EventLoopFuture<T>, timeout: Duration) async throws -> T {
        let eventLoop = future.eventLoop
        let promise = eventLoop.makePromise(of: T.self)
        let settled = LockedBox(false)
        let timer = eventLoop.scheduleTask(in: timeout.timeAmount) {
            if settled.withLock({ done in defer { done = true }; return !done }) { promise.fail(TimedOut()) }
        }
        future.whenComplete { result in
            timer.cancel()
            if settled.withLock({ done in defer { done = true }; return !done }) { promise.completeWith(result) }
        }
        return try await promise.futureResult.get()
    }

    /// Starts closing `connection` without waiting for it.
    static func closeInBackground(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
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
