#if Postgres  // the trait; these tests need PostgresNIO
import Foundation
import PostgresTestServer
import PropertyBased
import RetryPolicyCore
import RetryPolicyPostgres
import Testing

/// A policy whose breaker opens after three failures in a row, for a 10 s
/// break that doubles with each reopening, with `probes` probes.
func breakerPolicy(probes: Int = 2) -> Policy {
    var policy = fleetPolicy(capacity: 1000)
    policy.breaker = CircuitBreakerConfiguration(
        consecutiveFailures: 3, breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300),
        halfOpenProbes: probes)
    return policy
}

extension CircuitBreaker {
    /// Admits one call as the executor does, claiming a half-open probe's
    /// permit; its ticket, or `nil` when rejected.
    func ticket(at now: Timestamp) async -> CircuitBreakerStateMachine.Ticket? {
        if case .proceed(let ticket?) = await admitClaimingProbe(at: now).0 { ticket } else { nil }
    }

    func rejects(at now: Timestamp) async -> Bool { await ticket(at: now) == nil }

    /// Three failures in a row at `now`: opens a closed breaker (whose
    /// admission never claims).
    @discardableResult
    func open(at now: Timestamp) -> CircuitBreakerTransition? {
        var last: CircuitBreakerTransition?
        for _ in 0..<3 {
            guard case .proceed(let ticket?) = admit(at: now).0 else { return nil }
            last = record(failure: true, ticket: ticket, at: now)
        }
        return last
    }
}

/// Two stores on two connections stand for two processes. Time is the
/// breaker's: each admission and result is given its instant.
@Suite(
    "The circuit breaker shared through a real PostgreSQL",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct SharedBreakerTests {
    @Test("One store opens: the other rejects within milliseconds, pushed by notification, and admission does no round trip")
    func openingPropagates() async throws {
        let database = try TestDatabase()
        let a = try await database.store(), b = try await database.store()
        var times: [Duration] = []
        for round in 1...5 {
            let key = "propagation-\(round)"
            let sender = try #require(await a.decider(for: breakerPolicy(), key: key).breaker)
            let receiver = try #require(await b.decider(for: breakerPolicy(), key: key).breaker)
            let t0 = wallNow()
            #expect(sender.open(at: t0) == .opened(until: t0 + .seconds(10), breakDuration: .seconds(10), reason: .consecutiveFailures))
            let clock = ContinuousClock()
            let start = clock.now
            // The receiver's own clock says 1 s later: well inside the break.
            let seen = await waitFor { receiver.state == .open(until: t0 + .seconds(10)) }
            let elapsed = clock.now - start
            #expect(seen != nil, "round \(round): the opening never arrived")
            times.append(elapsed)
            let before = b.statistics.roundTrips
            guard case .reject(let rejected, .breaker) = await receiver.admitClaimingProbe(at: t0 + .seconds(1)).0, case let retryAfter = rejected.retryAfter else {
                Issue.record("round \(round): the receiver admitted a call while open")
                continue
            }
            #expect(retryAfter == .seconds(9))
            #expect(b.statistics.roundTrips == before, "an open breaker's rejection asked the database")
        }
        // Measured on loopback: a few milliseconds (see docs/fleet.md). Not
        // bounded here, where the rest of the suite competes for the threads
        // that poll; that every opening was pushed (not re-read at a
        // reconnection) is what the counts below prove.
        times.sort()
        print("breaker opening propagation over 5 rounds: median \(times[2]), max \(times[4])")
        #expect(await waitFor { b.statistics.breakerChangesReceived >= 5 } != nil, "\(b.statistics)")
        #expect(b.statistics.reconnections == 0)
        // The notification can overtake the publisher's own completion.
        #expect(await waitFor { a.statistics.breakerOpeningsPublished == 5 } != nil, "\(a.statistics)")
        #expect(a.statistics.fallbacks + b.statistics.fallbacks == 0)
        for store in [a, b] { await store.shutdown() }
    }

    @Test("A closed breaker admits without a round trip; a late starter reads an active opening at once")
    func closedIsLocalAndLateStarterReads() async throws {
        let database = try TestDatabase()
        let a = try await database.store()
        let breaker = try #require(await a.decider(for: breakerPolicy(), key: "local").breaker)
        let t0 = wallNow()
        let before = a.statistics.roundTrips
        for _ in 0..<50 {
            let ticket = try #require(await breaker.ticket(at: t0))
            #expect(breaker.record(failure: false, ticket: ticket, at: t0) == nil)
        }
        #expect(a.statistics.roundTrips == before, "a closed breaker asked the database")
        breaker.open(at: t0)
        let written = await waitFor {
            (try? database.query("SELECT opening, state, until_ns, openings FROM retry_policy_breaker WHERE key = 'local'"))
                == "1|open|\((t0 + .seconds(10)).nanosecondsSince1970)|1"
        }
        #expect(written != nil)
        let late = try await database.store()
        let lateBreaker = try #require(await late.decider(for: breakerPolicy(), key: "local").breaker)
        #expect(lateBreaker.state == .open(until: t0 + .seconds(10)))
        for store in [a, late] { await store.shutdown() }
    }

    @Test("A shorter opening never shortens the shared break; a longer one extends it everywhere")
    func openingOnlyExtends() async throws {
        let database = try TestDatabase()
        let a = try await database.store(), b = try await database.store()
        let one = try #require(await a.decider(for: breakerPolicy(), key: "extend").breaker)
        let two = try #require(await b.decider(for: breakerPolicy(), key: "extend").breaker)
        let t0 = wallNow()
        one.open(at: t0 + .seconds(5))  // until t0 + 15 s
        #expect(await waitFor { two.state == .open(until: t0 + .seconds(15)) } != nil)
        // B's own breaker could not have opened while open, so open it from
        // a fresh decider on the key that had not seen the opening yet: its
        // break (t0 + 10 s) is shorter and is refused; it adopts the row's.
        let three = try #require(await b.decider(for: breakerPolicy(), key: "extend").breaker)
        #expect(three.state == .open(until: t0 + .seconds(15)))
        let c = try await database.store()
        let stale = CircuitBreaker(configuration: try #require(breakerPolicy().breaker), store: c, key: "extend")
        let published = c.statistics.breakerOpeningsPublished
        stale.open(at: t0)  // until t0 + 10 s, not registered: only its write matters
        // An opening on another key, sent after the stale one on C's
        // connection: once it is written, the stale write was answered.
        CircuitBreaker(configuration: try #require(breakerPolicy().breaker), store: c, key: "extend-after").open(at: t0)
        #expect(await waitFor { c.statistics.breakerOpeningsPublished > published } != nil)
        #expect(try database.query("SELECT until_ns FROM retry_policy_breaker WHERE key = 'extend'") == "\((t0 + .seconds(15)).nanosecondsSince1970)")
        #expect(one.state == .open(until: t0 + .seconds(15)))
        #expect(two.state == .open(until: t0 + .seconds(15)))
        // A longer one (t0 + 30 s) extends it for everyone.
        let longer = CircuitBreaker(configuration: try #require(breakerPolicy().breaker), store: c, key: "extend")
        longer.open(at: t0 + .seconds(20))
        #expect(await waitFor { one.state == .open(until: t0 + .seconds(30)) && two.state == .open(until: t0 + .seconds(30)) } != nil)
        for store in [a, b, c] { await store.shutdown() }
    }

    @Test("Probes fleet-wide never exceed half_open_probes, however many processes and threads claim at once")
    func probesLimitedFleetWide() async throws {
        let database = try TestDatabase()
        let stores = [
            try await database.store { $0.withdrawTimeout = .seconds(10) },
            try await database.store { $0.withdrawTimeout = .seconds(10) },
            try await database.store { $0.withdrawTimeout = .seconds(10) },
        ]
        let round = AtomicInt64(0)
        await propertyCheck(count: 8, input: Gen.int(in: 1...4), Gen.int(in: 1...5), Gen.int(in: 0...4)) { limit, perStore, released in
            let key = "probes-\(round.add(1, ordering: .relaxed).newValue)"
            var breakers: [CircuitBreaker] = []
            for store in stores {
                breakers.append(await store.decider(for: breakerPolicy(probes: limit), key: key).breaker!)
            }
            let t0 = wallNow()
            breakers[0].open(at: t0)
            let everywhere = await waitFor { breakers.allSatisfy { $0.state == .open(until: t0 + .seconds(10)) } }
            #expect(everywhere != nil)
            let afterBreak = t0 + .seconds(11)
            func claimAll(at now: Timestamp) async -> [(Int, CircuitBreakerStateMachine.Ticket)] {
                await withTaskGroup(of: (Int, CircuitBreakerStateMachine.Ticket)?.self) { group in
                    for (index, breaker) in breakers.enumerated() {
                        for _ in 0..<perStore {
                            group.addTask { await breaker.ticket(at: now).map { (index, $0) } }
                        }
                    }
                    var granted: [(Int, CircuitBreakerStateMachine.Ticket)] = []
                    for await ticket in group { if let ticket { granted.append(ticket) } }
                    return granted
                }
            }
            let claimers = perStore * breakers.count
            let first = await claimAll(at: afterBreak)
            #expect(first.count == min(limit, claimers), "limit \(limit), \(claimers) claimers")
            #expect((try? database.query("SELECT probes FROM retry_policy_breaker WHERE key = '\(key)'")) == "\(first.count)")
            // Probes that will not report give their permits back; a second
            // wave gets exactly those.
            let giveBack = min(released, first.count)
            for (index, ticket) in first.prefix(giveBack) { breakers[index].release(ticket) }
            let back = await waitFor {
                (try? database.query("SELECT probes FROM retry_policy_breaker WHERE key = '\(key)'")) == "\(first.count - giveBack)"
            }
            #expect(back != nil)
            // Later than the refused claimers' pause before asking again.
            let second = await claimAll(at: afterBreak + .seconds(1))
            #expect(second.count == min(limit - first.count + giveBack, claimers))
            #expect((try? database.query("SELECT probes <= \(limit) FROM retry_policy_breaker WHERE key = '\(key)'")) == "t")
        }
        #expect(stores.map(\.statistics.fallbacks).reduce(0, +) == 0, "\(stores.map(\.statistics))")
        for store in stores { await store.shutdown() }
    }

    @Test("A probe's success on B closes the breaker on A too")
    func probeSuccessCloses() async throws {
        let database = try TestDatabase()
        let a = try await database.store(), b = try await database.store()
        let one = try #require(await a.decider(for: breakerPolicy(probes: 1), key: "close").breaker)
        let two = try #require(await b.decider(for: breakerPolicy(probes: 1), key: "close").breaker)
        let t0 = wallNow()
        one.open(at: t0)
        #expect(await waitFor { two.state == .open(until: t0 + .seconds(10)) } != nil)
        let afterBreak = t0 + .seconds(11)
        let (admission, transition) = await two.admitClaimingProbe(at: afterBreak)
        guard case .proceed(let probe?) = admission else {
            Issue.record("B's probe was not admitted: \(admission)")
            return
        }
        #expect(transition == .halfOpened)
        // The only permit is out: A rejects, without a break to wait for.
        #expect(await one.admitClaimingProbe(at: afterBreak).0 == one.configuration.rejection(retryAfter: nil))
        #expect(a.statistics.probePermitsRefused == 1)
        // For the next 100 ms of its time A rejects without asking again.
        let asked = a.statistics.roundTrips
        #expect(await one.admitClaimingProbe(at: afterBreak + .milliseconds(99)).0 == one.configuration.rejection(retryAfter: nil))
        #expect(a.statistics.roundTrips == asked)
        #expect(await one.admitClaimingProbe(at: afterBreak + .milliseconds(100)).0 == one.configuration.rejection(retryAfter: nil))
        #expect(a.statistics.roundTrips == asked + 1)
        #expect(two.record(failure: false, ticket: probe, at: afterBreak) == .closed)
        #expect(await waitFor { one.state == .closed } != nil, "A did not close")
        #expect(try database.query("SELECT state, openings FROM retry_policy_breaker WHERE key = 'close'") == "closed|0")
        // Closed again: A admits locally, no round trip.
        let before = a.statistics.roundTrips
        #expect(await one.rejects(at: afterBreak) == false)
        #expect(a.statistics.roundTrips == before)
        // The next opening starts from the first break again.
        #expect(one.open(at: afterBreak) == .opened(until: afterBreak + .seconds(10), breakDuration: .seconds(10), reason: .consecutiveFailures))
        for store in [a, b] { await store.shutdown() }
    }

    @Test("With two probes on two processes, the breaker closes only when both succeeded")
    func probesSpreadOverProcesses() async throws {
        let database = try TestDatabase()
        let a = try await database.store(), b = try await database.store()
        let one = try #require(await a.decider(for: breakerPolicy(probes: 2), key: "spread").breaker)
        let two = try #require(await b.decider(for: breakerPolicy(probes: 2), key: "spread").breaker)
        // A second key whose opening A shares after the probe's success:
        // once B has it, B has read whatever A sent before.
        let markerA = try #require(await a.decider(for: breakerPolicy(probes: 2), key: "spread-after").breaker)
        let markerB = try #require(await b.decider(for: breakerPolicy(probes: 2), key: "spread-after").breaker)
        let t0 = wallNow()
        one.open(at: t0)
        #expect(await waitFor { two.state == .open(until: t0 + .seconds(10)) } != nil)
        let afterBreak = t0 + .seconds(11)
        let probeA = try #require(await one.ticket(at: afterBreak))
        let probeB = try #require(await two.ticket(at: afterBreak))
        #expect(await one.rejects(at: afterBreak))
        #expect(await two.rejects(at: afterBreak))
        #expect(one.record(failure: false, ticket: probeA, at: afterBreak) == nil)
        markerA.open(at: t0)
        #expect(await waitFor { markerB.state == .open(until: t0 + .seconds(10)) } != nil)
        #expect(one.state == .halfOpen && two.state == .halfOpen, "closed after one of two probes")
        #expect(two.record(failure: false, ticket: probeB, at: afterBreak) == nil)
        #expect(await waitFor { one.state == .closed && two.state == .closed } != nil)
        for store in [a, b] { await store.shutdown() }
    }

    @Test("A probe's failure reopens the breaker everywhere, with the grown break")
    func probeFailureReopens() async throws {
        let database = try TestDatabase()
        let a = try await database.store(), b = try await database.store()
        let one = try #require(await a.decider(for: breakerPolicy(probes: 1), key: "reopen").breaker)
        let two = try #require(await b.decider(for: breakerPolicy(probes: 1), key: "reopen").breaker)
        let t0 = wallNow()
        one.open(at: t0)
        #expect(await waitFor { two.state == .open(until: t0 + .seconds(10)) } != nil)
        let afterBreak = t0 + .seconds(11)
        let probe = try #require(await two.ticket(at: afterBreak))
        // Second opening without closing: the break doubles to 20 s.
        #expect(
            two.record(failure: true, ticket: probe, at: afterBreak)
                == .opened(until: afterBreak + .seconds(20), breakDuration: .seconds(20), reason: .probeFailed))
        #expect(await waitFor { one.state == .open(until: afterBreak + .seconds(20)) } != nil, "A did not reopen")
        #expect(one.consecutiveOpenings == 2)
        guard case .reject(let rejected, .breaker) = await one.admitClaimingProbe(at: afterBreak + .seconds(5)).0, case let retryAfter = rejected.retryAfter else {
            Issue.record("A admitted during the grown break")
            return
        }
        #expect(retryAfter == .seconds(15))
        #expect(try database.query("SELECT opening, state, openings FROM retry_policy_breaker WHERE key = 'reopen'") == "2|open|2")
        // The third opening, from A this time, doubles again.
        let later = afterBreak + .seconds(21)
        let probeA = try #require(await one.ticket(at: later))
        #expect(one.record(failure: true, ticket: probeA, at: later) == .opened(until: later + .seconds(40), breakDuration: .seconds(40), reason: .probeFailed))
        #expect(await waitFor { two.state == .open(until: later + .seconds(40)) } != nil)
        for store in [a, b] { await store.shutdown() }
    }

    @Test("A permit held by a process that never reports lapses after the lease: probing starts over")
    func permitLeaseLapses() async throws {
        let database = try TestDatabase()
        let a = try await database.store { $0.probeLease = .seconds(30) }, b = try await database.store { $0.probeLease = .seconds(30) }
        let one = try #require(await a.decider(for: breakerPolicy(probes: 1), key: "lease").breaker)
        let two = try #require(await b.decider(for: breakerPolicy(probes: 1), key: "lease").breaker)
        let t0 = wallNow()
        one.open(at: t0)
        #expect(await waitFor { two.state == .open(until: t0 + .seconds(10)) } != nil)
        let stuck = try #require(await one.ticket(at: t0 + .seconds(11)))  // never reports
        #expect(await two.admitClaimingProbe(at: t0 + .seconds(40)).0 == two.configuration.rejection(retryAfter: nil))
        let probe = try #require(await two.ticket(at: t0 + .seconds(42)), "the lapsed permit was not claimed again")
        #expect(two.record(failure: false, ticket: probe, at: t0 + .seconds(42)) == .closed)
        #expect(await waitFor { one.state == .closed } != nil)
        // The stuck probe's late result belongs to an earlier round: ignored.
        #expect(one.record(failure: true, ticket: stuck, at: t0 + .seconds(43)) == nil)
        #expect(one.state == .closed)
        #expect(try database.query("SELECT state FROM retry_policy_breaker WHERE key = 'lease'") == "closed")
        for store in [a, b] { await store.shutdown() }
    }
}

extension SharedBreakerTests {
    @Test("A store that missed the notification while disconnected re-reads the opening when it reconnects")
    func reconnectionRereads() async throws {
        let database = try TestDatabase()
        let a = try await database.store()
        let b = try await database.store()
        let one = try #require(await a.decider(for: breakerPolicy(), key: "reread").breaker)
        let two = try #require(await b.decider(for: breakerPolicy(), key: "reread").breaker)
        // Each store also opens a short connection to test notifications;
        // once both are gone, the database has the two listening ones.
        let settled = await waitFor {
            a.statistics.notificationProbesPassed == 1 && b.statistics.notificationProbesPassed == 1
                && (try? database.server.psql("SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database.name)'"))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "2"
        }
        #expect(settled != nil)
        // Nobody may connect to the database any more; then B's connection
        // (the newer of the two) is ended. A keeps its own.
        _ = try database.server.psql("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS false")
        _ = try database.server.psql("""
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database.name)'
            ORDER BY backend_start DESC LIMIT 1
            """)
        #expect(await waitFor { !b.isConnected } != nil)
        #expect(a.isConnected)
        let t0 = wallNow()
        one.open(at: t0)
        #expect(await waitFor { a.statistics.breakerOpeningsPublished == 1 } != nil)
        // B has no connection to hear it on: nothing to wait for.
        #expect(two.state == .closed, "B learned the opening without a connection")
        _ = try database.server.psql("ALTER DATABASE \(database.name) ALLOW_CONNECTIONS true")
        #expect(await waitFor { b.isConnected } != nil, "B did not reconnect")
        #expect(await waitFor { two.state == .open(until: t0 + .seconds(10)) } != nil, "B did not re-read the opening")
        #expect(b.statistics.reconnections >= 1)
        #expect(await two.rejects(at: t0 + .seconds(1)))
        for store in [a, b] { await store.shutdown() }
    }
}

extension SharedBreakerTests {
    @Test("A breaker made over the store but never registered: its probe claims a permit, and its success closes the fleet")
    func unregisteredBreakerProbes() async throws {
        let database = try TestDatabase()
        let a = try await database.store(), c = try await database.store()
        let one = try #require(await a.decider(for: breakerPolicy(probes: 1), key: "unregistered").breaker)
        let loose = CircuitBreaker(configuration: try #require(breakerPolicy(probes: 1).breaker), store: c, key: "unregistered")
        let t0 = wallNow()
        loose.open(at: t0)
        #expect(await waitFor { one.state == .open(until: t0 + .seconds(10)) } != nil)
        let probe = try #require(await loose.ticket(at: t0 + .seconds(11)))
        #expect(c.statistics.probePermitsGranted == 1)
        #expect(await one.admitClaimingProbe(at: t0 + .seconds(11)).0 == one.configuration.rejection(retryAfter: nil))
        #expect(loose.record(failure: false, ticket: probe, at: t0 + .seconds(11)) == .closed)
        #expect(await waitFor { one.state == .closed } != nil, "the unregistered breaker's success was not counted")
        for store in [a, c] { await store.shutdown() }
    }
}

/// Reconnections need a server of their own.
@Suite(
    "The shared circuit breaker with PostgreSQL restarted",
    .enabled(if: PostgresTestServer.unavailableReason == nil, "\(PostgresTestServer.unavailableReason ?? "")"),
    .timeLimit(.minutes(3)))
struct SharedBreakerRestartTests {
    @Test("Database down: the local breaker decides at once; back: the opening made meanwhile is shared, and re-read on reconnection")
    func downAndBack() async throws {
        let server = try PostgresTestServer.start()
        defer { server.stop() }
        let database = try TestDatabase(server: server)
        let a = try await database.store { $0.withdrawTimeout = .milliseconds(100) }
        // B reconnects slowly, so that A has shared its opening before B is
        // back: B can only learn it by re-reading the row.
        let b = try await database.store {
            $0.withdrawTimeout = .milliseconds(100)
            $0.reconnectDelay = .seconds(4)
            $0.maximumReconnectDelay = .seconds(4)
        }
        let one = try #require(await a.decider(for: breakerPolicy(probes: 1), key: "outage").breaker)
        let two = try #require(await b.decider(for: breakerPolicy(probes: 1), key: "outage").breaker)

        try server.stopServer()
        #expect(await waitFor { !a.isConnected && !b.isConnected } != nil)
        let t0 = wallNow()
        let clock = ContinuousClock()
        let start = clock.now
        // Down: A opens on its own and rejects locally.
        #expect(one.open(at: t0) == .opened(until: t0 + .seconds(10), breakDuration: .seconds(10), reason: .consecutiveFailures))
        #expect(await one.rejects(at: t0 + .seconds(1)))
        // After the break, the probe permit cannot be claimed: the local
        // breaker lets its own probe through, without waiting.
        let fallbacksBefore = a.statistics.fallbacks
        let (admission, transition) = await one.admitClaimingProbe(at: t0 + .seconds(11))
        guard case .proceed(let probe?) = admission else {
            Issue.record("the local fallback rejected the probe")
            return
        }
        #expect(transition == .halfOpened)
        #expect(a.statistics.fallbacks > fallbacksBefore)
        // The probe fails: reopened locally for 20 s, kept for sharing.
        #expect(one.record(failure: true, ticket: probe, at: t0 + .seconds(11))
            == .opened(until: t0 + .seconds(31), breakDuration: .seconds(20), reason: .probeFailed))
        #expect(clock.now - start < .seconds(2), "deciding waited on the database")
        #expect(two.state == .closed)

        try server.startServer()
        #expect(await waitFor { a.isConnected } != nil)
        let shared = await waitFor {
            (try? database.query("SELECT state, until_ns, openings FROM retry_policy_breaker WHERE key = 'outage'"))
                == "open|\((t0 + .seconds(31)).nanosecondsSince1970)|2"
        }
        #expect(shared != nil, "the opening kept during the outage was not written")
        #expect(await waitFor { b.isConnected } != nil, "B did not reconnect")
        #expect(await waitFor { two.state == .open(until: t0 + .seconds(31)) } != nil, "B did not re-read the opening")
        #expect(two.consecutiveOpenings == 2)
        #expect(b.statistics.reconnections >= 1)
        for store in [a, b] { await store.shutdown() }
    }
}
#endif
