/// The states of one circuit breaker and the events that move it: a
/// struct with `mutating` events and time passed in, no clock read.
///
/// Calls are admitted with `admit(at:)`, which hands out a ``Ticket``;
/// their results come back with `record(failure:ticket:at:)`. A result
/// whose ticket is from an earlier state (a call admitted while closed
/// that ends after the breaker opened, or a probe of an earlier half-open
/// period) is ignored, so only probes decide a half-open breaker.
public struct CircuitBreakerStateMachine: Sendable {
    /// What a call carries from admission to its result.
    public struct Ticket: Hashable, Sendable {
        let generation: UInt64
    }

    /// The state, as seen from outside.
    public enum State: Hashable, Sendable {
        case closed
        case open(until: Timestamp)
        case halfOpen
    }

    fileprivate enum Phase: Sendable {
        case closed
        case open(until: Timestamp)
        case halfOpen(admitted: Int, succeeded: Int)
    }

    package let configuration: CircuitBreakerConfiguration
    private var phase = Phase.closed
    /// Changes with every state change; tickets of earlier states are stale.
    private var generation: UInt64 = 0
    /// Times opened since the breaker last closed.
    private var openings = 0
    private var consecutive = 0
    private var window: Window
    /// A change adopted from elsewhere (a breaker shared through a store)
    /// and not yet reported: the next admission reports it.
    private var adopted: CircuitBreakerTransition?

    package init(configuration: CircuitBreakerConfiguration) {
        self.configuration = configuration
        window = Window(configuration.sampling)
    }

    package var state: State {
        switch phase {
        case .closed: .closed
        case .open(let until): .open(until: until)
        case .halfOpen: .halfOpen
        }
    }

    /// Calls and failures in the window now (closed state only; the window
    /// is emptied when the breaker opens).
    package var windowCounts: (calls: Int, failures: Int) { (window.calls, window.failures) }

    // MARK: Events

    /// A call wants to go through at `now`. An open breaker whose break is
    /// over becomes half-open first (the returned transition).
    package mutating func admit(at now: Timestamp) -> (Admission, CircuitBreakerTransition?) {
        if let adopted {
            self.adopted = nil
            let (admission, transition) = admit(at: now)
            return (admission, transition ?? adopted)
        }
        switch phase {
        case .closed:
            return (.proceed(ticket: Ticket(generation: generation)), nil)
        case .open(let until):
            if now < until { return (configuration.rejection(retryAfter: until.duration(since: now)), nil) }
            enter(.halfOpen(admitted: 1, succeeded: 0))
            return (.proceed(ticket: Ticket(generation: generation)), .halfOpened)
        case .halfOpen(let admitted, let succeeded):
            guard admitted < configuration.halfOpenProbes else { return (configuration.rejection(retryAfter: nil), nil) }
            phase = .halfOpen(admitted: admitted + 1, succeeded: succeeded)
            return (.proceed(ticket: Ticket(generation: generation)), nil)
        }
    }

    /// The call admitted with `ticket` ended at `now`, as a failure or not.
    package mutating func record(failure: Bool, ticket: Ticket, at now: Timestamp) -> CircuitBreakerTransition? {
        guard ticket.generation == generation else { return nil }
        switch phase {
        case .open:
            return nil
        case .halfOpen(let admitted, let succeeded):
            if failure { return open(at: now, reason: .probeFailed) }
            if succeeded + 1 >= configuration.halfOpenProbes {
                openings = 0
                consecutive = 0
                window.reset()
                enter(.closed)
                return .closed
            }
            phase = .halfOpen(admitted: admitted, succeeded: succeeded + 1)
            return nil
        case .closed:
            consecutive = failure ? consecutive + 1 : 0
            window.add(failure: failure, at: now)
            if let limit = configuration.consecutiveFailures, consecutive >= limit {
                return open(at: now, reason: .consecutiveFailures)
            }
            if window.calls >= max(configuration.minimumCalls, 1),
                Double(window.failures) >= configuration.failureRatio * Double(window.calls)
            {
                return open(at: now, reason: .failureRatio)
            }
            return nil
        }
    }

    /// Times the breaker opened since it last closed (0 while closed after
    /// a close): what the next break's length grows from.
    package var consecutiveOpenings: Int { openings }

    /// Whether `ticket` is a probe of the current half-open period, so
    /// that its result still decides the breaker.
    package func isProbe(_ ticket: Ticket) -> Bool {
        guard ticket.generation == generation, case .halfOpen = phase else { return false }
        return true
    }

    /// Another process sharing the breaker opened it until `until`, its
    /// `openings`-th opening since the breaker last closed. Only ever
    /// extends: an open breaker whose break ends at or after `until` stays
    /// as it is. A closed or half-open breaker opens (its window emptied,
    /// its probes' results ignored from then on). The change is returned,
    /// and reported once more by the next ``admit(at:)`` (so that the call
    /// that meets it reports it, as calls report changes made here) unless
    /// a change made here comes first. A peer is trusted for nothing: a
    /// break longer than this configuration's longest is cut to it, and
    /// the count is kept within what this breaker counts to.
    package mutating func adoptOpening(until sharedUntil: Timestamp, openings shared: Int, at now: Timestamp) -> CircuitBreakerTransition? {
        let until = min(sharedUntil, now + configuration.longestBreak)
        openings = max(openings, min(max(shared, 0), CircuitBreakerConfiguration.maximumOpenings))
        if case .open(let current) = phase, current >= until { return nil }
        consecutive = 0
        window.reset()
        enter(.open(until: until))
        let transition = CircuitBreakerTransition.opened(until: until, breakDuration: until.duration(since: now), reason: .shared)
        adopted = transition
        return transition
    }

    /// Another process sharing the breaker closed it (its probes all
    /// succeeded): close with an empty window, the break back to its first
    /// length. Reported by the next ``admit(at:)`` like an adopted opening.
    package mutating func adoptClosing() -> CircuitBreakerTransition? {
        if case .closed = phase { return nil }
        openings = 0
        consecutive = 0
        window.reset()
        enter(.closed)
        adopted = .closed
        return .closed
    }

    /// Starts a new half-open period with no probe admitted yet, whatever
    /// the state: the probes of an earlier period no longer decide. Used
    /// when the right to probe is granted from outside (a fleet-wide
    /// permit); ``admit(at:)`` then admits the probe.
    package mutating func beginProbing() -> CircuitBreakerTransition? {
        let wasHalfOpen: Bool
        if case .halfOpen = phase { wasHalfOpen = true } else { wasHalfOpen = false }
        enter(.halfOpen(admitted: 0, succeeded: 0))
        return wasHalfOpen ? nil : .halfOpened
    }

    /// The call admitted with `ticket` will not report a result (it was
    /// cancelled, or never started): a half-open breaker lets another
    /// probe through in its place.
    package mutating func release(_ ticket: Ticket) {
        guard ticket.generation == generation, case .halfOpen(let admitted, let succeeded) = phase else { return }
        phase = .halfOpen(admitted: max(admitted - 1, succeeded), succeeded: succeeded)
    }

    private mutating func open(at now: Timestamp, reason: CircuitBreakerTransition.OpenReason) -> CircuitBreakerTransition {
        openings = min(openings, CircuitBreakerConfiguration.maximumOpenings - 1) + 1
        consecutive = 0
        window.reset()
        let length = configuration.breakDuration(opening: openings)
        let until = now + length
        enter(.open(until: until))
        return .opened(until: until, breakDuration: length, reason: reason)
    }

    private mutating func enter(_ next: Phase) {
        phase = next
        generation &+= 1
        adopted = nil
    }
}

extension CircuitBreakerConfiguration {
    /// A breaker's refusal: open, with `retryAfter` left of the break, or
    /// half-open with every probe already out (`nil`).
    package func rejection(retryAfter: Duration?) -> Admission {
        var error = SDKError(kind: self.error, retryAfter: retryAfter)
        error.detail = retryAfter == nil ? "circuit half-open, every probe in flight" : "circuit open"
        return .reject(error, .breaker)
    }
}
