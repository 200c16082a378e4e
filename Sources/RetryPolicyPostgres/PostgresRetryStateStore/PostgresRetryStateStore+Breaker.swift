#if Postgres  // the trait; without it this module is empty
import Foundation
import Logging
import NIOCore
import PostgresNIO
import RetryPolicyCore

/// The circuit breaker shared through PostgreSQL.
///
/// Each process keeps its own window of calls (counting every call in the
/// database would put a round trip on every call); what the fleet shares
/// is the breaker's *open* state and its half-open probe permits, one row
/// per key in `retry_policy_breaker`:
///
/// - When a local breaker opens (failure ratio, consecutive failures, a
///   failed probe), the store writes "open until T, opening number n" with
///   a conditional upsert that only ever extends the break, and notifies.
///   Every store on the key adopts it (from the notification, or by
///   re-reading the row after a reconnection); admission then rejects
///   locally, without a round trip.
/// - Once the break is over, a call must claim one of the
///   `half_open_probes` permits with one conditional `UPDATE ... RETURNING`
///   (awaited by the executor as a task, at most
///   ``PostgresStateConfiguration/withdrawTimeout``), so no more probes than
///   that are ever out across the fleet. Each probe's
///   success is counted in the row; the last one closes the breaker for
///   everyone (notified). A probe's failure opens it again for everyone,
///   with the grown break.
/// - Without the database, and for a caller that cannot wait (the
///   synchronous `admit`), every decision falls back to the local breaker.
extension PostgresRetryStateStore {
    /// Notifications about breakers share the cooldown channel and start
    /// with this word: `breaker OPENING STATE UNTIL_NS OPENINGS KEY`.
    static let breakerNotificationPrefix = SharedStateNotification.breakerPrefix

    /// A row of `retry_policy_breaker` as read, checked like a
    /// notification; `nil` (logged) when a field is out of range.
    func sharedBreaker(key: String, opening: Int64, state: String, until: Int64, openings: Int) -> SharedBreakerChange? {
        switch SharedStateNotification.breaker(key: key, opening: opening, state: state[...], until: until, openings: openings) {
        case .success(let change): return change
        case .failure(let problem):
            ignore("breaker row \(opening) \(state) \(until) \(openings) \(key)", because: problem)
            return nil
        }
    }

    // MARK: RetryStateStore

    /// Never waits: a probe that needs a fleet-wide permit is decided on
    /// the local breaker, as when the database cannot be reached. The
    /// executor claims the permit instead (`claimProbe(at:through:)`).
    public func admit(at now: Timestamp, through breaker: CircuitBreaker)
        -> (Admission, CircuitBreakerTransition?)
    {
        if let decided = admitUnlessClaiming(at: now, through: breaker) { return decided }
        counters.add(\.probeClaimsNotWaited)
        return breaker.admitLocally(at: now)
    }

    public func admitUnlessClaiming(at now: Timestamp, through breaker: CircuitBreaker)
        -> (Admission, CircuitBreakerTransition?)?
    {
        guard let key = breaker.key else { return breaker.admitLocally(at: now) }
        // Closed, or open with the break running: local, no round trip.
        if let local = breaker.admitWithoutProbe(at: now) { return local }
        // The break is over: a probe needs a fleet-wide permit, unless every
        // permit was out a moment ago.
        let id = ObjectIdentifier(breaker)
        if let until = state.withLock({ $0.keys[key]?.claimAgain[id] }), now < until {
            counters.add(\.probePermitsRefused)
            return (breaker.configuration.rejection(retryAfter: nil), nil)
        }
        guard liveConnection() != nil else { return breakerFallBack(breaker, at: now, reason: "disconnected") }
        return nil
    }

    /// Claims a fleet-wide probe permit with one statement on the
    /// connection's event loop, awaited as a task (never blocking a
    /// thread) for at most `withdrawTimeout`; a permit granted after the
    /// claim gave up is given back.
    public func claimProbe(at now: Timestamp, through breaker: CircuitBreaker) async
        -> (Admission, CircuitBreakerTransition?)
    {
        if let decided = admitUnlessClaiming(at: now, through: breaker) { return decided }
        guard let key = breaker.key, let connection = liveConnection() else {
            return breakerFallBack(breaker, at: now, reason: "disconnected")
        }
        let limit = Swift.max(breaker.configuration.halfOpenProbes, 1)
        let nowNanoseconds = now.nanosecondsSince1970
        let lease = configuration.probeLease.nanosecondsClamped
        // A claim takes the next permit while fewer than `limit` are out; if
        // all are out and the lease has run out, it starts a new round of
        // probes under a new opening number. The second half of the union
        // returns the row as it is when nothing was granted.
        let query: PostgresQuery = """
            WITH claim AS (
                UPDATE retry_policy_breaker AS b SET
                    opening = CASE WHEN b.probes >= \(limit) THEN b.opening + 1 ELSE b.opening END,
                    probes = CASE WHEN b.probes >= \(limit) THEN 1 ELSE b.probes + 1 END,
                    successes = CASE WHEN b.probes >= \(limit) THEN 0 ELSE b.successes END,
                    probes_until_ns = CASE WHEN b.probes = 0 OR b.probes >= \(limit)
                        THEN \(nowNanoseconds) + \(lease) ELSE b.probes_until_ns END,
                    updated_at = now()
                WHERE b.key = \(key) AND b.state = 'open' AND b.until_ns <= \(nowNanoseconds)
                    AND (b.probes < \(limit) OR b.probes_until_ns <= \(nowNanoseconds))
                RETURNING b.opening, b.state, b.until_ns, b.openings)
            SELECT true, opening, state, until_ns, openings FROM claim
            UNION ALL
            SELECT false, opening, state, until_ns, openings FROM retry_policy_breaker
            WHERE key = \(key) AND NOT EXISTS (SELECT 1 FROM claim)
            """
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        let future: EventLoopFuture<PostgresQueryResult> = connection.query(query, logger: logger)
        let result: PostgresQueryResult
        do {
            result = try await Self.value(of: future, timeout: configuration.withdrawTimeout)
        } catch is TimedOut {
            // A permit granted after the claim gave up is given back.
            future.whenSuccess { [self] result in
                guard let row = result.rows.first,
                    let (granted, opening, _, _, _) = try? row.decode((Bool, Int64, String, Int64, Int).self),
                    granted
                else { return }
                releasePermit(key: key, opening: opening, on: connection)
            }
            return breakerFallBack(breaker, at: now, reason: "timed out after \(configuration.withdrawTimeout)")
        } catch {
            return breakerFallBack(breaker, at: now, reason: "\(DisplayText.escaped(String(reflecting: error)))")
        }
        guard let row = result.rows.first,
            let (granted, opening, state, until, openings) = try? row.decode((Bool, Int64, String, Int64, Int).self)
        else {
            // No row: this opening never reached the database (it was
            // made while disconnected, or its write is still on the way).
            return breakerFallBack(breaker, at: now, reason: "no shared state for the key yet")
        }
        guard let shared = sharedBreaker(key: key, opening: opening, state: state, until: until, openings: openings) else {
            if granted { releasePermit(key: key, opening: opening, on: connection) }
            return breakerFallBack(breaker, at: now, reason: "the shared state of the key is malformed")
        }
        if granted {
            counters.add(\.probePermitsGranted)
            let newPeriod = notePermit(key: key, breaker: breaker, opening: opening)
            let (admission, transition) = breaker.admitProbe(at: now, newPeriod: newPeriod)
            if case .reject = admission { releasePermit(key: key, opening: opening, on: connection) }
            return (admission, transition)
        }
        adopt(shared, at: now)
        if shared.isOpen, shared.until <= now, breaker.state != .closed {
            counters.add(\.probePermitsRefused)
            let again = now + configuration.probeClaimInterval
            let id = ObjectIdentifier(breaker)
            self.state.withLock { state in
                var entry = state.keys[key] ?? KeyState(capacity: 0)
                if !entry.breakers.contains(where: { $0 === breaker }) { entry.breakers.append(breaker) }
                entry.claimAgain[id] = again
                state.keys[key] = entry
            }
            return (breaker.configuration.rejection(retryAfter: nil), nil)
        }
        return breaker.admitLocally(at: now)
    }

    public func record(
        failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp, in breaker: CircuitBreaker
    ) -> CircuitBreakerTransition? {
        guard let key = breaker.key else { return breaker.recordLocally(failure: failure, ticket: ticket, at: now) }
        let (transition, wasProbe) = breaker.recordLocallyNotingProbe(failure: failure, ticket: ticket, at: now)
        let probeOpening = wasProbe ? permitOpening(key: key, breaker: breaker) : nil
        if case .opened(let until, _, _) = transition {
            publishOpening(
                key: key, until: until,
                write: OpeningWrite(openings: breaker.consecutiveOpenings, longest: breaker.configuration.longestBreak))
        } else if !failure, let probeOpening {
            publishProbeSuccess(key: key, opening: probeOpening, limit: Swift.max(breaker.configuration.halfOpenProbes, 1))
        }
        return transition
    }

    public func release(_ ticket: CircuitBreakerStateMachine.Ticket, in breaker: CircuitBreaker) {
        guard let key = breaker.key else { return breaker.releaseLocally(ticket) }
        let probeOpening = breaker.isProbe(ticket) ? permitOpening(key: key, breaker: breaker) : nil
        breaker.releaseLocally(ticket)
        if let probeOpening, let connection = liveConnection() {
            releasePermit(key: key, opening: probeOpening, on: connection)
        }
    }

    // MARK: Permits

    /// Records that `breaker` holds a permit of `opening`; `true` when
    /// that starts a new half-open period for it (its earlier probes, if
    /// any, were of another opening).
    private func notePermit(key: String, breaker: CircuitBreaker, opening: Int64) -> Bool {
        state.withLock { state in
            // A breaker never registered still has its probes counted.
            var entry = state.keys[key] ?? KeyState(capacity: 0)
            if !entry.breakers.contains(where: { $0 === breaker }) { entry.breakers.append(breaker) }
            let id = ObjectIdentifier(breaker)
            let previous = entry.probing[id]
            entry.probing[id] = opening
            entry.breakerOpening = Swift.max(entry.breakerOpening, opening)
            state.keys[key] = entry
            return previous != opening
        }
    }

    private func permitOpening(key: String, breaker: CircuitBreaker) -> Int64? {
        state.withLock { $0.keys[key]?.probing[ObjectIdentifier(breaker)] }
    }

    /// Gives a permit of `opening` back (a probe that will not report).
    private func releasePermit(key: String, opening: Int64, on connection: PostgresConnection) {
        let query: PostgresQuery = """
            UPDATE retry_policy_breaker SET probes = probes - 1, updated_at = now()
            WHERE key = \(key) AND opening = \(opening) AND state = 'open' AND probes > successes
            """
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        connection.query(query, logger: logger).whenFailure { [self] error in
            logger.debug("shared state: probe permit not given back", metadata: ["key": "\(key)", "error": "\(Self.describe(error))"])
        }
    }

    /// Counts a probe's success; the last of `limit` closes the breaker
    /// for everyone on the key.
    private func publishProbeSuccess(key: String, opening: Int64, limit: Int) {
        guard let connection = liveConnection() else {
            logger.debug("shared state: probe success not shared (disconnected)", metadata: ["key": "\(key)"])
            return
        }
        let query: PostgresQuery = """
            WITH up AS (
                UPDATE retry_policy_breaker AS b SET
                    successes = b.successes + 1,
                    state = CASE WHEN b.successes + 1 >= \(limit) THEN 'closed' ELSE 'open' END,
                    openings = CASE WHEN b.successes + 1 >= \(limit) THEN 0 ELSE b.openings END,
                    updated_at = now()
                WHERE b.key = \(key) AND b.opening = \(opening) AND b.state = 'open' AND b.successes < b.probes
                RETURNING b.key, b.opening, b.state, b.until_ns, b.openings)
            SELECT pg_notify(\(Self.notificationChannel),
                'breaker ' || up.opening || ' ' || up.state || ' ' || up.until_ns || ' ' || up.openings || ' ' || up.key)
            FROM up WHERE up.state = 'closed'
            """
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        connection.query(query, logger: logger).whenFailure { [self] error in
            logger.warning(
                "shared state: probe success not shared", metadata: ["key": "\(key)", "error": "\(Self.describe(error))"])
        }
    }

    // MARK: Openings

    /// Shares an opening until `until`: written only if it extends the
    /// break (or the breaker was closed), then notified. Kept for the
    /// reconnection when the database cannot be reached.
    func publishOpening(key: String, until: Timestamp, write: OpeningWrite) {
        guard let connection = liveConnection() else {
            keepOpening(key: key, until: until, write: write)
            return
        }
        publishOpening(key: key, until: until, write: write, on: connection)
    }

    @discardableResult
    private func publishOpening(key: String, until: Timestamp, write: OpeningWrite, on connection: PostgresConnection)
        -> EventLoopFuture<Void>
    {
        let openings = write.openings
        // A row whose break ends further off than this breaker's longest
        // break from now was not written by a breaker of this policy: it
        // is replaced, not kept until then.
        let furthest = (Self.wallClock() + write.longest).nanosecondsSince1970
        let query: PostgresQuery = """
            WITH up AS (
                INSERT INTO retry_policy_breaker AS b (key, opening, state, until_ns, openings)
                VALUES (\(key), 1, 'open', \(until.nanosecondsSince1970), \(openings))
                ON CONFLICT (key) DO UPDATE SET
                    opening = b.opening + 1, state = 'open', until_ns = EXCLUDED.until_ns,
                    openings = GREATEST(b.openings, EXCLUDED.openings),
                    probes = 0, successes = 0, probes_until_ns = 0, updated_at = now()
                    WHERE b.state = 'closed' OR b.until_ns < EXCLUDED.until_ns OR b.until_ns > \(furthest)
                RETURNING b.key, b.opening, b.state, b.until_ns, b.openings)
            SELECT up.opening, pg_notify(\(Self.notificationChannel),
                'breaker ' || up.opening || ' ' || up.state || ' ' || up.until_ns || ' ' || up.openings || ' ' || up.key)::text
            FROM up
            """
        counters.add(\.roundTrips)
        roundTripCounter.increment()
        let written = connection.query(query, logger: logger)
        written.whenComplete { [self] result in
            switch result {
            case .success(let rows):
                if let row = rows.rows.first, let (opening, _) = try? row.decode((Int64, String).self) {
                    counters.add(\.breakerOpeningsPublished)
                    state.withLock { state in
                        if var entry = state.keys[key] {
                            entry.breakerOpening = Swift.max(entry.breakerOpening, opening)
                            state.keys[key] = entry
                        }
                    }
                } else {
                    // A longer break is already shared: adopt it.
                    Task { [self] in try? await synchronizeBreaker(key: key, on: connection) }
                }
            case .failure(let failure):
                keepOpening(key: key, until: until, write: write)
                logger.warning(
                    "shared state: breaker opening not shared yet, kept for the reconnection",
                    metadata: ["key": "\(key)", "error": "\(Self.describe(failure))"])
            }
        }
        return written.map { _ in }
    }

    private func keepOpening(key: String, until: Timestamp, write: OpeningWrite) {
        keep(Pending(until: until, value: write), key: key, in: \.pendingOpenings)
    }

    /// Writes the openings kept while disconnected whose break is not over,
    /// and waits (each at most the connect timeout) until the database has
    /// them; one that fails is kept again.
    func publishPendingOpenings(on connection: PostgresConnection) async {
        let pending = takePending(\.pendingOpenings)
        let now = Self.wallClock()
        let writes = pending.filter { $0.value.until > now }.map { key, opening in
            publishOpening(key: key, until: opening.until, write: opening.value, on: connection)
        }
        for write in writes { _ = try? await Self.value(of: write, timeout: configuration.connectTimeout) }
    }

    // MARK: Adoption

    /// Reads the key's row and adopts it.
    func synchronizeBreaker(key: String, on connection: PostgresConnection) async throws {
        guard state.withLock({ !($0.keys[key]?.breakers.isEmpty ?? true) }) else { return }
        let read: PostgresQuery = "SELECT opening, state, until_ns, openings FROM retry_policy_breaker WHERE key = \(key)"
        let rows = try await Self.run(read, on: connection, logger: logger, timeout: configuration.connectTimeout)
        for row in rows {
            let (opening, state, until, openings) = try row.decode((Int64, String, Int64, Int).self)
            if let shared = sharedBreaker(key: key, opening: opening, state: state, until: until, openings: openings) {
                adopt(shared, at: Self.wallClock())
            }
        }
    }

    /// Applies the fleet's state of a key's breaker to the local breakers:
    /// an opening older than one already seen is ignored; an opening
    /// extends a local break (never shortens it), up to each breaker's own
    /// longest break; a closing closes, unless this process opened the
    /// breaker while disconnected and has not shared that yet.
    func adopt(_ shared: SharedBreakerChange, at now: Timestamp) {
        let key = shared.key
        let (breakers, known, keepsOpening, since) = state.withLock { state -> ([CircuitBreaker], Int64, Bool, Timestamp) in
            guard var entry = state.keys[key] else { return ([], 0, false, now) }
            let known = entry.breakerOpening
            entry.breakerOpening = Swift.max(known, shared.opening)
            // The same break read again is limited from when it was first
            // read, so that re-reading a row a peer wrote too far off does
            // not push the break on and on.
            var since = now
            if let seen = entry.breakSeen, seen.opening == shared.opening, seen.until == shared.until {
                since = Swift.min(seen.at, now)
            } else {
                entry.breakSeen = (shared.opening, shared.until, now)
            }
            state.keys[key] = entry
            return (entry.breakers, known, state.pendingOpenings[key] != nil, since)
        }
        guard shared.opening >= known else { return }
        for breaker in breakers {
            let transition: CircuitBreakerTransition?
            if shared.isOpen {
                // The same opening again (a re-read) leaves probes in
                // flight alone.
                if shared.opening == known, breaker.state == .halfOpen { continue }
                let limited = shared.limited(by: breaker.configuration, at: since)
                transition = breaker.adoptOpening(until: limited.until, openings: limited.openings, at: now)
            } else {
                if keepsOpening { continue }
                transition = breaker.adoptClosing()
            }
            guard let transition else { continue }
            counters.add(\.breakerChangesReceived)
            logger.info(
                "shared state: circuit breaker changed elsewhere",
                metadata: ["key": "\(DisplayText.escaped(key))", "opening": "\(shared.opening)", "transition": "\(transition)"])
        }
    }

    // MARK: Fallback

    private func breakerFallBack(_ breaker: CircuitBreaker, at now: Timestamp, reason: String)
        -> (Admission, CircuitBreakerTransition?)
    {
        counters.add(\.fallbacks)
        fallbackCounter.increment()
        logger.warning(
            "shared state: circuit breaker unreachable, deciding on local state",
            metadata: ["key": "\(DisplayText.escaped(breaker.key ?? ""))", "reason": "\(reason)"])
        return breaker.admitLocally(at: now)
    }

    static func wallClock() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(nanosecondsSince1970: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}
#endif
