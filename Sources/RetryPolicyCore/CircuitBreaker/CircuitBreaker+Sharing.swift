/// What a ``RetryStateStore`` that shares the breaker (the PostgreSQL
/// store) needs: this process's state alone, probes admitted on a right
/// granted from outside, and changes adopted from elsewhere. `package`,
/// because the breaker's state is this package's to share; a store written
/// elsewhere keeps the protocol's defaults.
extension CircuitBreaker {
    /// A release in this process's state only.
    package func releaseLocally(_ ticket: CircuitBreakerStateMachine.Ticket) {
        machine.withLock { $0.release(ticket) }
    }

    /// Admission decided in this process when that needs nothing from
    /// elsewhere: closed, or open with the break still running. `nil` once
    /// the break is over (open or half-open), when a shared breaker must
    /// first claim a probe permit. One lock, no state read twice.
    package func admitWithoutProbe(at now: Timestamp) -> (Admission, CircuitBreakerTransition?)? {
        machine.withLock { machine in
            switch machine.state {
            case .closed: return machine.admit(at: now)
            case .open(let until) where now < until: return machine.admit(at: now)
            case .open, .halfOpen: return nil
            }
        }
    }

    /// A result recorded in this process's state only, and whether the
    /// call was a probe of the current half-open period (read under the
    /// same lock).
    package func recordLocallyNotingProbe(failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp)
        -> (transition: CircuitBreakerTransition?, wasProbe: Bool)
    {
        machine.withLock { machine in
            let wasProbe = machine.isProbe(ticket)
            return (machine.record(failure: failure, ticket: ticket, at: now), wasProbe)
        }
    }

    /// Times opened since the breaker last closed.
    package var consecutiveOpenings: Int { machine.withLock { $0.consecutiveOpenings } }

    /// Whether `ticket` is a probe of the current half-open period.
    package func isProbe(_ ticket: CircuitBreakerStateMachine.Ticket) -> Bool { machine.withLock { $0.isProbe(ticket) } }

    /// Applies an opening from elsewhere (see
    /// ``CircuitBreakerStateMachine/adoptOpening(until:openings:at:)``).
    package func adoptOpening(until: Timestamp, openings: Int, at now: Timestamp) -> CircuitBreakerTransition? {
        machine.withLock { $0.adoptOpening(until: until, openings: openings, at: now) }
    }

    /// Applies a closing from elsewhere.
    package func adoptClosing() -> CircuitBreakerTransition? { machine.withLock { $0.adoptClosing() } }

    /// Admits a probe whose right to go through was granted from outside
    /// (a fleet-wide permit): a breaker that is not half-open, or with
    /// `newPeriod` one whose probes belong to an earlier period, starts a
    /// new half-open period first; then the probe is admitted in it.
    package func admitProbe(at now: Timestamp, newPeriod: Bool) -> (Admission, CircuitBreakerTransition?) {
        machine.withLock { machine in
            var started: CircuitBreakerTransition?
            if newPeriod || machine.state != .halfOpen { started = machine.beginProbing() }
            let (admission, transition) = machine.admit(at: now)
            return (admission, transition ?? started)
        }
    }

    /// Admission against this process's state only.
    package func admitLocally(at now: Timestamp) -> (Admission, CircuitBreakerTransition?) {
        machine.withLock { $0.admit(at: now) }
    }

    /// A result recorded in this process's state only.
    package func recordLocally(failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp)
        -> CircuitBreakerTransition?
    {
        machine.withLock { $0.record(failure: failure, ticket: ticket, at: now) }
    }
}
