#if Postgres  // the trait; without it this module is empty
import Logging
import Metrics
import NIOCore
import PostgresNIO
import RetryPolicyCore

extension PostgresRetryStateStore {
    func liveConnection() -> PostgresConnection? {
        state.withLock { state in
            guard let connection = state.connection, !connection.isClosed else { return nil }
            return connection
        }
    }

    /// A connection for a statement outside the running store (creating
    /// the tables).
    func connectOrThrow() async throws(PostgresStateError) -> PostgresConnection {
        do throws(ConnectionFailure) {
            return try await connectClassified()
        } catch {
            switch error {
            case .permanent(let failure): throw failure
            case .transient(let reason): throw .connectionFailed(configuration.redactedURL, reason)
            }
        }
    }

    func connectClassified() async throws(ConnectionFailure) -> PostgresConnection {
        do {
            return try await connect()
        } catch let error as PostgresStateError {
            throw .permanent(error)
        } catch {
            throw classify(connectionError: error)
        }
    }

    func connect() async throws -> PostgresConnection {
        let tls = try state.withLock({ $0.tls }) ?? configuration.tls.connectionTLS()
        var postgres = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: tls)
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

    /// Keeps one connection listening; on loss (or with none at all, when
    /// the store started without the database), connects with doubling
    /// pauses, checks the tables if no connection has yet, and
    /// re-synchronises every registered key.
    func supervise(firstConnection: PostgresConnection?) async {
        var connection = firstConnection
        var delay = configuration.reconnectDelay
        while !Task.isCancelled {
            if connection == nil {
                do {
                    let fresh = try await connect()
                    do throws(PostgresStateError) {
                        try await prepare(fresh)
                    } catch {
                        Self.closeInBackground(fresh)
                        throw error
                    }
                    connection = fresh
                    counters.add(\.reconnections)
                    reconnectCounter.increment()
                    logger.info("shared state: connected", metadata: ["database": "\(configuration.redactedURL)"])
                    delay = configuration.reconnectDelay
                } catch {
                    // Tables missing or too new when the database finally
                    // answers: nothing to share until someone fixes it, so
                    // say so loudly; the store keeps deciding locally.
                    if error is PostgresStateError {
                        logger.error("shared state: the database cannot be used", metadata: ["error": "\(error)"])
                    } else {
                        logger.debug("shared state: connecting failed", metadata: ["error": "\(Self.describe(error))"])
                    }
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
        // Cancelled before the first connection was listened on (a
        // shutdown right after the start): it is still open, and a
        // connection must be closed before it is released.
        if let connection { try? await connection.close() }
    }

    /// Listens on `connection` until it closes (or the store stops):
    /// once `LISTEN` is in place, makes the connection the one statements
    /// use, re-reads every registered key, writes what was kept, and checks
    /// that notifications arrive (`watchNotifications(on:probe:heard:)`).
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
                        await publishPendingOpenings(on: connection)
                        markReady()
                        let probe = Self.probeNotificationPrefix + "\(UInt64.random(in: 0...UInt64.max))"
                        let heard = LockedBox(false)
                        try await withThrowingTaskGroup(of: Void.self) { watchers in
                            watchers.addTask { [self] in await watchNotifications(on: connection, probe: probe, heard: heard) }
                            for try await notification in notifications {
                                if notification.payload == probe {
                                    heard.withLock { $0 = true }
                                } else {
                                    await apply(notification: notification.payload, on: connection)
                                }
                            }
                            watchers.cancelAll()
                        }
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

    /// Creates missing budget rows and applies the cooldowns of `keys`.
    func synchronize(keys: [String], on connection: PostgresConnection) async {
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
                try await readSharedState(key: key, on: connection)
            } catch {
                logger.warning(
                    "shared state: could not synchronise", metadata: ["key": "\(DisplayText.escaped(key))", "error": "\(DisplayText.escaped(String(reflecting: error)))"])
            }
        }
    }

    /// Applies the key's cooldown and breaker rows to the local gates and
    /// breakers.
    func readSharedState(key: String, on connection: PostgresConnection) async throws {
        let read: PostgresQuery = "SELECT until_ns, kind, status FROM retry_policy_cooldown WHERE key = \(key)"
        let rows = try await Self.run(read, on: connection, logger: logger, timeout: configuration.connectTimeout)
        for row in rows {
            let (until, kind, status) = try row.decode((Int64, String, Int?).self)
            switch SharedStateNotification.cooldown(key: key, until: until, kind: kind[...], status: status) {
            case .success(let cooldown): apply(cooldown)
            case .failure(let problem): ignore("cooldown row \(until) \(status.map(String.init) ?? "-") \(kind) \(key)", because: problem)
            }
        }
        try await synchronizeBreaker(key: key, on: connection)
    }
}
#endif
