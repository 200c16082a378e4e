import PropertyBased
import RetryPolicyCore
import Testing

/// The events a breaker shared with other processes receives from them:
/// an opening, a closing, the start of a fleet-granted probe period.
@Suite struct SharedCircuitBreakerStateTests {
    typealias Machine = CircuitBreakerStateMachine

    static let t0 = Timestamp(secondsSince1970: 1_735_689_600)

    static func machine(probes: Int = 2) -> Machine {
        Machine(
            configuration: CircuitBreakerConfiguration(
                consecutiveFailures: 3, breakDuration: .seconds(10), breakMultiplier: 2, maxBreak: .seconds(300),
                halfOpenProbes: probes))
    }

    static func ticket(_ machine: inout Machine, at now: Timestamp) -> Machine.Ticket? {
        if case .proceed(let ticket?) = machine.admit(at: now).0 { ticket } else { nil }
    }

    static func open(_ machine: inout Machine, at now: Timestamp) {
        for _ in 0..<3 {
            guard let ticket = ticket(&machine, at: now) else { return }
            _ = machine.record(failure: true, ticket: ticket, at: now)
        }
    }

    @Test("closed → open on an opening from elsewhere: the window is emptied, the openings count adopted")
    func closedAdoptsOpening() throws {
        var machine = Self.machine()
        let early = try #require(Self.ticket(&machine, at: Self.t0))
        _ = machine.record(failure: true, ticket: early, at: Self.t0)
        let pending = try #require(Self.ticket(&machine, at: Self.t0))
        let transition = machine.adoptOpening(until: Self.t0 + .seconds(20), openings: 2, at: Self.t0)
        #expect(transition == .opened(until: Self.t0 + .seconds(20), breakDuration: .seconds(20), reason: .shared))
        #expect(machine.state == .open(until: Self.t0 + .seconds(20)))
        #expect(machine.consecutiveOpenings == 2)
        #expect(machine.windowCounts == (0, 0))
        // A call admitted before the opening no longer counts.
        #expect(machine.record(failure: true, ticket: pending, at: Self.t0) == nil)
        #expect(machine.admit(at: Self.t0 + .seconds(5)).0 == machine.configuration.rejection(retryAfter: .seconds(15)))
    }

    @Test("open: an opening from elsewhere extends the break, never shortens it")
    func openOnlyExtends() {
        var machine = Self.machine()
        Self.open(&machine, at: Self.t0)  // until t0 + 10 s
        #expect(machine.adoptOpening(until: Self.t0 + .seconds(5), openings: 1, at: Self.t0) == nil)
        #expect(machine.adoptOpening(until: Self.t0 + .seconds(10), openings: 1, at: Self.t0) == nil)
        #expect(machine.state == .open(until: Self.t0 + .seconds(10)))
        #expect(
            machine.adoptOpening(until: Self.t0 + .seconds(12), openings: 1, at: Self.t0)
                == .opened(until: Self.t0 + .seconds(12), breakDuration: .seconds(12), reason: .shared))
        #expect(machine.state == .open(until: Self.t0 + .seconds(12)))
    }

    @Test("half-open → open on an opening from elsewhere: the probes in flight no longer decide")
    func halfOpenAdoptsOpening() throws {
        var machine = Self.machine()
        Self.open(&machine, at: Self.t0)
        let probe = try #require(Self.ticket(&machine, at: Self.t0 + .seconds(10)))
        #expect(machine.isProbe(probe))
        #expect(machine.adoptOpening(until: Self.t0 + .seconds(30), openings: 2, at: Self.t0 + .seconds(10)) != nil)
        #expect(!machine.isProbe(probe))
        #expect(machine.record(failure: false, ticket: probe, at: Self.t0 + .seconds(10)) == nil)
        #expect(machine.state == .open(until: Self.t0 + .seconds(30)))
        // The break after the adopted second opening grows from it: 40 s.
        let next = try #require(Self.ticket(&machine, at: Self.t0 + .seconds(30)))
        #expect(
            machine.record(failure: true, ticket: next, at: Self.t0 + .seconds(30))
                == .opened(until: Self.t0 + .seconds(70), breakDuration: .seconds(40), reason: .probeFailed))
    }

    @Test("open or half-open → closed on a closing from elsewhere; closed stays closed")
    func adoptsClosing() throws {
        var open = Self.machine()
        Self.open(&open, at: Self.t0)
        #expect(open.adoptClosing() == .closed)
        #expect(open.state == .closed)
        #expect(open.consecutiveOpenings == 0)
        // The next opening is the first again.
        Self.open(&open, at: Self.t0)
        #expect(open.state == .open(until: Self.t0 + .seconds(10)))

        var halfOpen = Self.machine()
        Self.open(&halfOpen, at: Self.t0)
        let probe = try #require(Self.ticket(&halfOpen, at: Self.t0 + .seconds(10)))
        #expect(halfOpen.adoptClosing() == .closed)
        #expect(halfOpen.record(failure: true, ticket: probe, at: Self.t0 + .seconds(10)) == nil, "a stale probe reopened it")
        #expect(halfOpen.state == .closed)

        var closed = Self.machine()
        #expect(closed.adoptClosing() == nil)
        #expect(closed.state == .closed)
    }

    @Test("beginProbing: open → half-open whatever the break; half-open → a new period whose earlier probes are stale")
    func beginProbing() throws {
        var machine = Self.machine(probes: 2)
        Self.open(&machine, at: Self.t0)
        // A fleet permit may come before this process's own break ends.
        #expect(machine.beginProbing() == .halfOpened)
        #expect(machine.state == .halfOpen)
        let first = try #require(Self.ticket(&machine, at: Self.t0 + .seconds(1)))
        let second = try #require(Self.ticket(&machine, at: Self.t0 + .seconds(1)))
        #expect(Self.ticket(&machine, at: Self.t0 + .seconds(1)) == nil)
        #expect(machine.beginProbing() == nil)
        #expect(!machine.isProbe(first) && !machine.isProbe(second))
        #expect(machine.record(failure: true, ticket: first, at: Self.t0 + .seconds(1)) == nil)
        #expect(machine.state == .halfOpen)
        let third = try #require(Self.ticket(&machine, at: Self.t0 + .seconds(1)))
        let fourth = try #require(Self.ticket(&machine, at: Self.t0 + .seconds(1)))
        _ = machine.record(failure: false, ticket: third, at: Self.t0 + .seconds(1))
        #expect(machine.record(failure: false, ticket: fourth, at: Self.t0 + .seconds(1)) == .closed)
        #expect(!machine.isProbe(fourth))
    }

    @Test("Whatever the sequence of local calls and openings from elsewhere, an open breaker's break never ends earlier than an adopted one")
    func adoptedBreakNeverShortened() async {
        await propertyCheck(
            count: 200, input: Gen.int(in: 0...3).array(of: 1...40), Gen.int(in: 0...60).array(of: 1...40)
        ) { events, seconds in
            var machine = Self.machine()
            var now = Self.t0
            var latestAdopted: Timestamp?
            for (event, amount) in zip(events, seconds) {
                switch event {
                case 0:
                    if let ticket = Self.ticket(&machine, at: now) { _ = machine.record(failure: amount % 2 == 0, ticket: ticket, at: now) }
                case 1:
                    let until = now + .seconds(amount)
                    _ = machine.adoptOpening(until: until, openings: 1 + amount % 3, at: now)
                    latestAdopted = max(latestAdopted ?? until, until)
                case 2:
                    _ = machine.adoptClosing()
                    latestAdopted = nil
                default:
                    now = now + .seconds(amount)
                }
                if let latestAdopted, case .open(let until) = machine.state {
                    #expect(until >= latestAdopted)
                }
            }
        }
    }

    @Test("The live breaker: local admission only while closed or inside the break; a granted probe starts or joins a half-open period")
    func liveBreakerProbeAdmission() throws {
        let breaker = CircuitBreaker(configuration: Self.machine(probes: 2).configuration)
        let closed = try #require(breaker.admitWithoutProbe(at: Self.t0))
        guard case .proceed(let ticket?) = closed.0 else {
            Issue.record("closed breaker rejected")
            return
        }
        #expect(breaker.recordLocallyNotingProbe(failure: true, ticket: ticket, at: Self.t0) == (nil, false))
        for _ in 0..<2 {
            if case .proceed(let ticket?) = breaker.admitLocally(at: Self.t0).0 { _ = breaker.recordLocally(failure: true, ticket: ticket, at: Self.t0) }
        }
        #expect(breaker.state == .open(until: Self.t0 + .seconds(10)))
        #expect(breaker.admitWithoutProbe(at: Self.t0 + .seconds(9))?.0 == breaker.configuration.rejection(retryAfter: .seconds(1)))
        #expect(breaker.admitWithoutProbe(at: Self.t0 + .seconds(10)) == nil, "the break is over: a probe needs a permit")
        // A permit granted: the breaker goes half-open and admits the probe.
        let (first, started) = breaker.admitProbe(at: Self.t0 + .seconds(10), newPeriod: false)
        #expect(started == .halfOpened)
        guard case .proceed(let probe?) = first else {
            Issue.record("granted probe rejected")
            return
        }
        #expect(breaker.admitWithoutProbe(at: Self.t0 + .seconds(10)) == nil)
        // A second permit of the same period joins it; one of a new period
        // starts over, and the earlier probe no longer decides.
        let (second, joined) = breaker.admitProbe(at: Self.t0 + .seconds(10), newPeriod: false)
        #expect(joined == nil)
        guard case .proceed = second else {
            Issue.record("second probe rejected")
            return
        }
        #expect(breaker.isProbe(probe))
        let (third, restarted) = breaker.admitProbe(at: Self.t0 + .seconds(10), newPeriod: true)
        #expect(restarted == nil)
        guard case .proceed(let fresh?) = third else {
            Issue.record("probe of a new period rejected")
            return
        }
        #expect(!breaker.isProbe(probe))
        #expect(breaker.recordLocallyNotingProbe(failure: true, ticket: probe, at: Self.t0 + .seconds(10)) == (nil, false))
        let result = breaker.recordLocallyNotingProbe(failure: true, ticket: fresh, at: Self.t0 + .seconds(10))
        #expect(result.wasProbe)
        #expect(result.transition == .opened(until: Self.t0 + .seconds(30), breakDuration: .seconds(20), reason: .probeFailed))
    }

    @Test("An adopted change is reported once, by the next admission; a change made here first supersedes it")
    func adoptedChangeReportedByNextAdmission() {
        var machine = Self.machine()
        let opened = machine.adoptOpening(until: Self.t0 + .seconds(10), openings: 1, at: Self.t0)
        #expect(machine.admit(at: Self.t0 + .seconds(1)) == (machine.configuration.rejection(retryAfter: .seconds(9)), opened))
        #expect(machine.admit(at: Self.t0 + .seconds(2)) == (machine.configuration.rejection(retryAfter: .seconds(8)), nil))
        #expect(machine.adoptClosing() == .closed)
        let (admission, transition) = machine.admit(at: Self.t0 + .seconds(3))
        guard case .proceed = admission else {
            Issue.record("closed breaker rejected")
            return
        }
        #expect(transition == .closed)
        #expect(machine.admit(at: Self.t0 + .seconds(3)).1 == nil)
        // Adopted opening, then the break ends before any call: the call
        // reports its own change (half-open), not the stale opening.
        _ = machine.adoptOpening(until: Self.t0 + .seconds(13), openings: 1, at: Self.t0 + .seconds(3))
        #expect(machine.admit(at: Self.t0 + .seconds(13)).1 == .halfOpened)
        // A probe period started from outside supersedes it too.
        var probing = Self.machine()
        _ = probing.adoptOpening(until: Self.t0 + .seconds(10), openings: 1, at: Self.t0)
        #expect(probing.beginProbing() == .halfOpened)
        #expect(probing.admit(at: Self.t0).1 == nil)
    }
}
