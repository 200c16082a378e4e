#if Postgres  // the trait; without it this module is empty
import Logging
import PostgresNIO

extension PostgresRetryStateStore {
    /// Connects, checks (or with `createSchema`, first creates) the tables,
    /// starts listening for cooldowns, and starts the refund writer and the
    /// reconnection loop.
    ///
    /// Throws what never fixes itself by waiting: a TLS setting or
    /// certificate that does not check out, wrong credentials, a database
    /// that does not exist, missing tables, a newer schema. A server that
    /// cannot be reached (refused, timed out) throws only when failing
    /// closed; failing open (the default), the store starts on local state,
    /// logs and counts that, and connects in the background with the
    /// reconnection's doubling pauses; once connected it checks the tables,
    /// writes what it kept, listens and reads the shared state. After a
    /// successful start, no failure of the database is ever thrown again.
    /// A second call does nothing.
    public func start(createSchema: Bool = false) async throws(PostgresStateError) {
        if state.withLock({ $0.started || $0.stopped }) { return }
        let tls = try configuration.tls.connectionTLS()
        state.withLock { state in
            state.tls = tls
            state.createSchema = createSchema
        }
        var connection: PostgresConnection?
        do throws(ConnectionFailure) {
            connection = try await connectClassified()
        } catch {
            switch error {
            case .permanent(let failure): throw failure
            case .transient(let reason):
                guard configuration.failureMode == .open else {
                    throw .connectionFailed(configuration.redactedURL, reason)
                }
                counters.add(\.fallbacks)
                fallbackCounter.increment()
                logger.warning(
                    "shared state: database unreachable at start; deciding on local state and connecting in the background",
                    metadata: ["database": "\(configuration.redactedURL)", "reason": "\(reason)", "mode": "open"])
            }
        }
        if let connection {
            do throws(PostgresStateError) {
                try await prepare(connection)
            } catch {
                try? await connection.close()
                throw error
            }
        }
        let begun = state.withLock { state in
            if state.stopped { return false }
            state.started = true
            return true
        }
        guard begun else {
            try? await connection?.close()
            return
        }
        let supervisor = Task { [self, connection] in await supervise(firstConnection: connection) }
        let flusher = Task { [self] in await flushRefundsPeriodically() }
        // A shutdown since `begun` took the task list before these were in
        // it: stop them here, as it would have.
        let stoppedMeanwhile = state.withLock { state in
            if !state.stopped { state.tasks += [supervisor, flusher] }
            return state.stopped
        }
        if stoppedMeanwhile {
            supervisor.cancel()
            flusher.cancel()
            return
        }
        guard connection != nil else { return }
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

    /// Creates (when asked at start) and checks the tables on `connection`,
    /// once per store.
    func prepare(_ connection: PostgresConnection) async throws(PostgresStateError) {
        let (checked, create) = state.withLock { ($0.schemaChecked, $0.createSchema) }
        if checked { return }
        if create { try await Self.createSchema(on: connection, logger: logger, timeout: configuration.connectTimeout) }
        try await Self.verifySchema(on: connection, logger: logger, timeout: configuration.connectTimeout)
        state.withLock { $0.schemaChecked = true }
    }

    /// Writes outstanding refunds, cooldowns and breaker openings (each
    /// statement bounded by the connect timeout), closes the connection and
    /// stops the background work. What the database did not take is
    /// logged. Waits for nothing when the database is down.
    public func shutdown() async {
        let connection = state.withLock { state in
            state.stopped = true
            return state.connection
        }
        if let connection, !connection.isClosed {
            await flushRefunds(on: connection)
            await flushRatioDeposits(on: connection)
            await publishPendingCooldowns(on: connection)
            await publishPendingOpenings(on: connection)
        }
        let (refunds, cooldowns, openings) = state.withLock { state in
            (state.pendingRefunds.values.reduce(0, +), state.pendingCooldowns.count, state.pendingOpenings.count)
        }
        if refunds > 0 || cooldowns > 0 || openings > 0 {
            logger.warning(
                "shared state: stopped with writes the database did not take",
                metadata: ["refunds": "\(refunds)", "cooldowns": "\(cooldowns)", "breaker openings": "\(openings)"])
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
        let waiting = state.withLock { state in
            state.isShutDown = true
            defer { state.stopWaiters = [:] }
            return state.stopWaiters.values
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once ``shutdown()`` has finished, or when the task is cancelled.
    func waitUntilShutDown() async {
        let id = state.withLock { state in
            defer { state.nextStopWaiter += 1 }
            return state.nextStopWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.isShutDown || Task.isCancelled { return true }
                    state.stopWaiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.stopWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    func waitUntilReady() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.isReady || state.stopped { return true }
                state.ready.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func markReady() {
        let waiting = state.withLock { state in
            state.isReady = true
            defer { state.ready = [] }
            return state.ready
        }
        for continuation in waiting { continuation.resume() }
    }
}
#endif
