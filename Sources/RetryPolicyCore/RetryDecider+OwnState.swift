/// A decider's own state as a value, for many separate clients of one
/// policy kept by one decider.
///
/// A decider made by `withOwnState()` has a budget, a cooldown gate and a
/// circuit breaker of its own: a few objects with locks, about two
/// kilobytes. A simulation of a million separate clients keeps each
/// client's state as an ``OwnState`` instead, and moves it into one such
/// decider while that client's events run: the same rules on the same
/// state, without a million deciders.
extension RetryDecider {
    /// A decider's budget tokens, cooldown and circuit breaker state.
    package struct OwnState: Sendable {
        fileprivate var tokens: Int
        fileprivate var cooldown: CooldownGate.Saved?
        fileprivate var breaker: CircuitBreakerStateMachine.Saved?
    }

    /// Whether the policy keeps state across requests (a budget, a
    /// circuit breaker or Retry-After cooldowns): without any, requests
    /// under one decider cannot affect each other.
    package var keepsState: Bool {
        let policy = compiled.policy
        return policy.budget != nil || policy.breaker != nil || policy.retryAfter.cooldown != .off
    }

    /// The state of this decider's budget, cooldown and breaker. Only for
    /// a decider whose state is kept in this process (no shared store).
    package var ownState: OwnState {
        OwnState(
            tokens: budget?.available ?? 0, cooldown: cooldown.saved,
            breaker: breaker.map { breaker in breaker.machine.withLock { $0.saved } })
    }

    /// The state a new decider of the policy starts with: a full budget,
    /// no cooldown, a closed breaker.
    package var initialOwnState: OwnState {
        OwnState(
            tokens: budget.map { max($0.configuration.capacity, 0) } ?? 0, cooldown: nil,
            breaker: breaker.map { CircuitBreakerStateMachine(configuration: $0.configuration).saved })
    }

    /// Puts `state` (taken from a decider of the same policy) in place of
    /// this decider's own.
    package func restore(_ state: OwnState) {
        precondition(
            budget?.store == nil && cooldown.store == nil && breaker?.store == nil,
            "restore(_:) is for a decider whose state is kept in this process")
        budget?.synchronize(available: state.tokens)
        cooldown.restore(state.cooldown)
        if let breaker, let saved = state.breaker {
            breaker.machine.withLock { $0.restore(saved) }
        }
    }
}
