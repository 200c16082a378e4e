import PropertyBased
import RetryPolicyCore
import Testing

/// Time for a breaker: a wall-clock instant moved by hand.
private struct HandClock {
    var now = Timestamp(secondsSince1970: 1_735_689_600)
    mutating func advance(_ duration: Duration) { now = now + duration }
}

@Suite struct CircuitBreakerStateMachineTests {
    typealias Machine = CircuitBreakerStateMachine

    static func config(
        sampling: CircuitBreakerConfiguration.Sampling = .count(10), ratio: Double = 0.5, minimumCalls: Int = 4,
        consecutive: Int? = nil, breakDuration: Duration = .seconds(10), multiplier: Double = 1, maxBreak: Duration? = nil,
        probes: Int = 2
    ) -> CircuitBreakerConfiguration {
        CircuitBreakerConfiguration(
            sampling: sampling, failureRatio: ratio, minimumCalls: minimumCalls, consecutiveFailures: consecutive,
            breakDuration: breakDuration, breakMultiplier: multiplier, maxBreak: maxBreak, halfOpenProbes: probes)
    }

    /// Admits one call and records its result; returns the transition.
    @discardableResult
    static func call(_ machine: inout Machine, failure: Bool, at now: Timestamp) -> CircuitBreakerTransition? {
        guard case .proceed(let ticket?) = machine.admit(at: now).0 else {
            Issue.record("call rejected in state \(machine.state)")
            return nil
        }
        return machine.record(failure: failure, ticket: ticket, at: now)
    }

    static func isRejected(_ machine: inout Machine, at now: Timestamp) -> Bool {
        if case .reject = machine.admit(at: now).0 { true } else { false }
    }

    @Test("Defaults: 50 % of the last 100 calls with at least 20, a 30 s break, 5 probes, no consecutive rule")
    func defaults() {
        let defaults = CircuitBreakerConfiguration()
        #expect(defaults.sampling == .count(100))
        #expect(defaults.failureRatio == 0.5)
        #expect(defaults.minimumCalls == 20)
        #expect(defaults.consecutiveFailures == nil)
        #expect(defaults.breakDuration == .seconds(30))
        #expect(defaults.halfOpenProbes == 5)
        #expect(defaults.failures.isRetried)
        #expect(defaults.error == .status5xx)
    }

    @Test("closed → open when the failure ratio reaches the threshold, not before the minimum calls")
    func opensByRatio() {
        var clock = HandClock()
        var machine = Machine(configuration: Self.config(ratio: 0.5, minimumCalls: 4))
        // Three failures: a ratio of 1, but below the minimum of 4 calls.
        for _ in 0..<3 { #expect(Self.call(&machine, failure: true, at: clock.now) == nil) }
        #expect(machine.state == .closed)
        clock.advance(.seconds(1))
        let transition = Self.call(&machine, failure: false, at: clock.now)
        // 3 of 4 failed: 75 % >= 50 %.
        #expect(transition == .opened(until: clock.now + .seconds(10), breakDuration: .seconds(10), reason: .failureRatio))
        #expect(machine.state == .open(until: clock.now + .seconds(10)))
        #expect(Self.isRejected(&machine, at: clock.now))
    }

    @Test("closed stays closed while the ratio is below the threshold")
    func staysClosedBelowRatio() {
        let clock = HandClock()
        var machine = Machine(configuration: Self.config(ratio: 0.5, minimumCalls: 4))
        for index in 0..<20 { Self.call(&machine, failure: index % 3 == 1, at: clock.now) }
        #expect(machine.state == .closed)
    }

    @Test("closed → open after N consecutive failures, whatever the ratio; a success resets the count")
    func opensByConsecutiveFailures() {
        let clock = HandClock()
        var machine = Machine(configuration: Self.config(ratio: 1, minimumCalls: 1000, consecutive: 3))
        Self.call(&machine, failure: true, at: clock.now)
        Self.call(&machine, failure: true, at: clock.now)
        Self.call(&machine, failure: false, at: clock.now)
        Self.call(&machine, failure: true, at: clock.now)
        Self.call(&machine, failure: true, at: clock.now)
        #expect(machine.state == .closed)
        let transition = Self.call(&machine, failure: true, at: clock.now)
        guard case .opened(_, _, .consecutiveFailures) = transition else {
            Issue.record("expected an opening by consecutive failures, got \(String(describing: transition))")
            return
        }
    }

    @Test("open → half-open once the break is over, and not a moment before")
    func halfOpensAfterBreak() {
        var clock = HandClock()
        var machine = Machine(configuration: Self.config(consecutive: 1, breakDuration: .seconds(10)))
        Self.call(&machine, failure: true, at: clock.now)
        clock.advance(.seconds(10) - .nanoseconds(1))
        let (early, none) = machine.admit(at: clock.now)
        #expect(early == machine.configuration.rejection(retryAfter: .nanoseconds(1)))
        #expect(none == nil)
        clock.advance(.nanoseconds(1))
        let (admission, transition) = machine.admit(at: clock.now)
        #expect(transition == .halfOpened)
        #expect(machine.state == .halfOpen)
        guard case .proceed = admission else {
            Issue.record("the first call after the break is a probe")
            return
        }
    }

    @Test("half-open → closed after every probe succeeded; the window starts empty")
    func closesAfterSuccessfulProbes() {
        var clock = HandClock()
        var machine = Machine(configuration: Self.config(minimumCalls: 2, consecutive: 1, probes: 2))
        Self.call(&machine, failure: true, at: clock.now)
        clock.advance(.seconds(10))
        guard case (.proceed(let first?), .halfOpened) = machine.admit(at: clock.now),
            case (.proceed(let second?), nil) = machine.admit(at: clock.now)
        else {
            Issue.record("two probes expected")
            return
        }
        #expect(machine.record(failure: false, ticket: first, at: clock.now) == nil)
        #expect(machine.state == .halfOpen)
        #expect(machine.record(failure: false, ticket: second, at: clock.now) == .closed)
        #expect(machine.state == .closed)
        #expect(machine.windowCounts == (0, 0))
    }

    @Test("half-open → open again on a failed probe")
    func reopensOnFailedProbe() {
        var clock = HandClock()
        var machine = Machine(configuration: Self.config(consecutive: 1, breakDuration: .seconds(10), probes: 3))
        Self.call(&machine, failure: true, at: clock.now)
        clock.advance(.seconds(10))
        Self.call(&machine, failure: false, at: clock.now)
        let transition = Self.call(&machine, failure: true, at: clock.now)
        #expect(transition == .opened(until: clock.now + .seconds(10), breakDuration: .seconds(10), reason: .probeFailed))
        #expect(Self.isRejected(&machine, at: clock.now))
    }

    @Test("a growing break doubles with each reopening, is capped, and starts over once closed")
    func growingBreakIsCapped() {
        var clock = HandClock()
        var machine = Machine(
            configuration: Self.config(consecutive: 1, breakDuration: .seconds(10), multiplier: 2, maxBreak: .seconds(35), probes: 1))
        var breaks: [Duration] = []
        if case .opened(_, let length, _) = Self.call(&machine, failure: true, at: clock.now) { breaks.append(length) }
        for _ in 0..<3 {
            clock.advance(breaks.last ?? .zero)
            if case .opened(_, let length, _) = Self.call(&machine, failure: true, at: clock.now) { breaks.append(length) }
        }
        #expect(breaks == [.seconds(10), .seconds(20), .seconds(35), .seconds(35)])
        clock.advance(.seconds(35))
        #expect(Self.call(&machine, failure: false, at: clock.now) == .closed)
        if case .opened(_, let length, _) = Self.call(&machine, failure: true, at: clock.now) {
            #expect(length == .seconds(10))
        } else {
            Issue.record("expected the breaker to open again")
        }
    }

    @Test("a time window forgets calls older than the window")
    func timeWindowExpires() {
        var clock = HandClock()
        var machine = Machine(configuration: Self.config(sampling: .time(.seconds(10)), ratio: 0.5, minimumCalls: 4))
        for _ in 0..<3 { Self.call(&machine, failure: true, at: clock.now) }
        #expect(machine.windowCounts == (3, 3))
        // Eleven seconds later the three failures have left the window: one
        // more failure is one call, below the minimum.
        clock.advance(.seconds(11))
        Self.call(&machine, failure: true, at: clock.now)
        #expect(machine.windowCounts == (1, 1))
        #expect(machine.state == .closed)
        // Within the window, they count.
        clock.advance(.seconds(5))
        for _ in 0..<2 { Self.call(&machine, failure: true, at: clock.now) }
        #expect(machine.state == .closed)
        #expect(Self.call(&machine, failure: false, at: clock.now) != nil)
        guard case .open = machine.state else {
            Issue.record("3 failures of 4 calls in 10 s should open, state \(machine.state)")
            return
        }
    }

    @Test("a time window drops buckets one by one as time passes")
    func timeWindowSlides() {
        var clock = HandClock()
        var machine = Machine(configuration: Self.config(sampling: .time(.seconds(10)), ratio: 1, minimumCalls: 100))
        Self.call(&machine, failure: true, at: clock.now)
        clock.advance(.seconds(5))
        Self.call(&machine, failure: false, at: clock.now)
        #expect(machine.windowCounts == (2, 1))
        clock.advance(.seconds(6))
        Self.call(&machine, failure: false, at: clock.now)
        #expect(machine.windowCounts == (2, 0))
    }

    @Test("a count window keeps only the last calls")
    func countWindowSlides() {
        let clock = HandClock()
        var machine = Machine(configuration: Self.config(sampling: .count(3), ratio: 1, minimumCalls: 100))
        for failure in [true, true, false, false] { Self.call(&machine, failure: failure, at: clock.now) }
        #expect(machine.windowCounts == (3, 1))
    }

    @Test("a result admitted in an earlier state is ignored; a released probe frees its place")
    func staleTicketsAndRelease() {
        var clock = HandClock()
        var machine = Machine(configuration: Self.config(consecutive: 1, probes: 1))
        guard case .proceed(let stale?) = machine.admit(at: clock.now).0 else { return }
        Self.call(&machine, failure: true, at: clock.now)
        // The call admitted before the breaker opened reports a success.
        #expect(machine.record(failure: false, ticket: stale, at: clock.now) == nil)
        clock.advance(.seconds(10))
        guard case .proceed(let probe?) = machine.admit(at: clock.now).0 else { return }
        #expect(Self.isRejected(&machine, at: clock.now))
        machine.release(probe)
        #expect(!Self.isRejected(&machine, at: clock.now))
    }

    @Test("half-open never lets more than the configured probes through")
    func probesAreBounded() async {
        await propertyCheck(
            count: 300, input: Gen.int(in: 1...6), Gen.int(in: 0...1_000).array(of: 1...60)
        ) { probes, script in
            var clock = HandClock()
            var machine = Machine(configuration: Self.config(consecutive: 1, breakDuration: .seconds(1), probes: probes))
            var inFlight: [(Machine.Ticket, Bool)] = []
            var probesThisPeriod = 0
            for code in script {
                clock.advance(.milliseconds(code % 700))
                switch code % 3 {
                case 0, 1:
                    let (admission, transition) = machine.admit(at: clock.now)
                    if transition == .halfOpened { probesThisPeriod = 0 }
                    if case .proceed(let ticket?) = admission {
                        if machine.state == .halfOpen { probesThisPeriod += 1 }
                        inFlight.append((ticket, code % 5 == 0))
                    }
                default:
                    guard !inFlight.isEmpty else { continue }
                    let (ticket, failure) = inFlight.removeFirst()
                    _ = machine.record(failure: failure, ticket: ticket, at: clock.now)
                }
                #expect(probesThisPeriod <= probes)
            }
        }
    }
}

@Suite struct CircuitBreakerDecisionTests {
    static func policy(breaker: CircuitBreakerConfiguration) -> Policy {
        var policy = Policy(
            name: "breaker", attempts: 3,
            rules: [
                Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry),
                Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.breaker = breaker
        return policy
    }

    static func run(_ decider: RetryDecider, _ statuses: [Int], at wall: Timestamp) -> RequestStateMachine.Action {
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        var action = machine.start(at: RequestTime(.zero, since: wall))
        var index = 0
        while case .startAttempt = action {
            action = machine.attemptFinished(
                .status(statuses[min(index, statuses.count - 1)]), at: RequestTime(.zero, since: wall), using: &generator)
            index += 1
            if case .wait = action { action = machine.waitFinished(at: RequestTime(.zero, since: wall)) }
        }
        return action
    }

    @Test("by default a failure is what the policy retries: 5xx opens the breaker, 404 does not")
    func defaultFailuresAreRetried() {
        let compiled = CompiledPolicy(policy: Self.policy(breaker: CircuitBreakerConfiguration()))
        #expect(compiled.breakerCountsFailure(.status(503), method: .get))
        #expect(!compiled.breakerCountsFailure(.status(404), method: .get))
        #expect(!compiled.breakerCountsFailure(.status(200), method: .get))
        #expect(!compiled.breakerCountsFailure(.transport(.cancelled), method: .get))
    }

    @Test("failures named by rule, error kind or status class")
    func namedFailures() {
        let byRule = CompiledPolicy(policy: Self.policy(breaker: CircuitBreakerConfiguration(failures: .init(rules: [1]))))
        #expect(byRule.breakerCountsFailure(.status(404), method: .get))
        #expect(!byRule.breakerCountsFailure(.status(503), method: .get))
        let byKind = CompiledPolicy(
            policy: Self.policy(breaker: CircuitBreakerConfiguration(failures: .init(errors: [.internalError]))))
        #expect(byKind.breakerCountsFailure(.status(418), method: .get))
        #expect(!byKind.breakerCountsFailure(.status(503), method: .get))
        let byStatus = CompiledPolicy(
            policy: Self.policy(breaker: CircuitBreakerConfiguration(failures: .init(statuses: [.range(400...499)]))))
        #expect(byStatus.breakerCountsFailure(.status(404), method: .get))
        #expect(!byStatus.breakerCountsFailure(.status(503), method: .get))
    }

    @Test("an open breaker ends the request at admission with circuit_open and the named kind, sending nothing")
    func openBreakerRejects() {
        let decider = RetryDecider(
            policy: Self.policy(breaker: CircuitBreakerConfiguration(consecutiveFailures: 2, error: .networkError)))
        let wall = Timestamp(secondsSince1970: 1_735_689_600)
        // Two 503s open it during the first request: its third attempt is
        // rejected.
        guard case .fail(let failure) = Self.run(decider, [503], at: wall) else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.reason == .circuitOpen)
        #expect(failure.error.kind == .networkError)
        #expect(failure.error.retryAfter == .seconds(30))
        #expect(failure.attempts.count == 2)
        // The next request sends nothing.
        var machine = RequestStateMachine(decider: decider)
        guard case .fail(let next) = machine.start(at: RequestTime(.seconds(1), since: wall)) else {
            Issue.record("expected an immediate failure")
            return
        }
        #expect(next.reason == .circuitOpen)
        #expect(next.attempts.isEmpty)
        #expect(machine.rejectedByBreaker)
        // After the break a probe goes through, and its success closes it.
        var probe = RequestStateMachine(decider: decider)
        guard case .startAttempt = probe.start(at: RequestTime(.seconds(30), since: wall)) else {
            Issue.record("expected a probe")
            return
        }
        #expect(probe.breakerTransition == .halfOpened)
        var generator = SplitMix64(seed: 1)
        _ = probe.attemptFinished(.status(200), at: RequestTime(.seconds(30), since: wall), using: &generator)
        #expect(decider.breaker?.state == .halfOpen)
    }

    @Test("the opening an attempt's result causes is reported by that event, even when the retry's admission follows at once")
    func openingSurvivesImmediateAdmission() {
        let decider = RetryDecider(policy: Self.policy(breaker: CircuitBreakerConfiguration(consecutiveFailures: 2)))
        let wall = Timestamp(secondsSince1970: 1_735_689_600)
        var machine = RequestStateMachine(decider: decider)
        var generator = SplitMix64(seed: 1)
        _ = machine.start(at: RequestTime(.zero, since: wall))
        #expect(machine.breakerTransition == nil)
        _ = machine.attemptFinished(.status(503), at: RequestTime(.zero, since: wall), using: &generator)
        #expect(machine.breakerTransition == nil)
        let action = machine.attemptFinished(.status(503), at: RequestTime(.zero, since: wall), using: &generator)
        guard case .fail(let failure) = action else {
            Issue.record("expected the zero-delay retry to be rejected")
            return
        }
        #expect(failure.reason == .circuitOpen)
        #expect(machine.breakerTransition == .opened(until: wall + .seconds(30), breakDuration: .seconds(30), reason: .consecutiveFailures))
    }

    @Test("a breaker handed to the decider counts failures by its own configuration")
    func explicitBreakerCountsByItsConfiguration() {
        var policy = Self.policy(breaker: CircuitBreakerConfiguration())
        policy.breaker = nil
        let decider = RetryDecider(
            policy: policy, breaker: CircuitBreaker(configuration: CircuitBreakerConfiguration(consecutiveFailures: 1)))
        guard case .fail(let failure) = Self.run(decider, [503], at: Timestamp(secondsSince1970: 0)) else { return }
        #expect(failure.reason == .circuitOpen)
        #expect(failure.attempts.count == 1)
    }

    @Test("a policy without a breaker has none, and admission is unchanged")
    func noBreaker() {
        var policy = Self.policy(breaker: CircuitBreakerConfiguration())
        policy.breaker = nil
        let decider = RetryDecider(policy: policy)
        #expect(decider.breaker == nil)
        for _ in 0..<10 {
            guard case .fail(let failure) = Self.run(decider, [503], at: Timestamp(secondsSince1970: 0)) else { return }
            #expect(failure.reason == .attemptsExhausted)
        }
    }
}
