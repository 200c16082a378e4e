/// The live breaker shared by every request under a policy: one
/// ``CircuitBreakerStateMachine`` behind a lock.
///
/// With a ``RetryStateStore`` the breaker goes through the store, under
/// ``key``; the in-memory store keeps it in this process.
public final class CircuitBreaker: Sendable {
    public let configuration: CircuitBreakerConfiguration
    public let key: String?
    public let store: (any RetryStateStore)?
    /// Not private: the members a sharing store uses live in
    /// `CircuitBreaker+Sharing.swift`.
    let machine: LockedValue<CircuitBreakerStateMachine>

    public init(configuration: CircuitBreakerConfiguration) {
        self.configuration = configuration
        key = nil
        store = nil
        machine = LockedValue(CircuitBreakerStateMachine(configuration: configuration))
    }

    /// A breaker shared through `store` under `key`.
    public init(configuration: CircuitBreakerConfiguration, store: any RetryStateStore, key: String) {
        self.configuration = configuration
        self.key = key
        self.store = store
        machine = LockedValue(CircuitBreakerStateMachine(configuration: configuration))
    }

    public var state: CircuitBreakerStateMachine.State { machine.withLock { $0.state } }

    /// May a call start at `now`? Never waits: a half-open probe of a
    /// breaker whose store claims probe permits elsewhere (a database) is
    /// decided on this process's breaker; `admitClaimingProbe(at:)`
    /// claims the permit instead.
    public func admit(at now: Timestamp) -> (Admission, CircuitBreakerTransition?) {
        if let store { return store.admit(at: now, through: self) }
        return admitLocally(at: now)
    }

    /// ``admit(at:)``, except that a half-open probe claims its permit from
    /// the store and awaits the answer (bounded by the store): the form
    /// for a driver that can wait.
    package func admitClaimingProbe(at now: Timestamp) async -> (Admission, CircuitBreakerTransition?) {
        if let store { return await store.claimProbe(at: now, through: self) }
        return admitLocally(at: now)
    }

    /// ``admit(at:)`` when it needs no claim; `nil` when a half-open
    /// probe must first claim a permit the store waits for.
    func admitUnlessClaiming(at now: Timestamp) -> (Admission, CircuitBreakerTransition?)? {
        if let store { return store.admitUnlessClaiming(at: now, through: self) }
        return admitLocally(at: now)
    }

    public func record(failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp)
        -> CircuitBreakerTransition?
    {
        if let store { return store.record(failure: failure, ticket: ticket, at: now, in: self) }
        return recordLocally(failure: failure, ticket: ticket, at: now)
    }

    /// The call admitted with `ticket` will report no result.
    public func release(_ ticket: CircuitBreakerStateMachine.Ticket) {
        if let store { return store.release(ticket, in: self) }
        releaseLocally(ticket)
    }
}
