import RetryPolicyCore

/// What simulated traffic reports as it runs: what a storm or a replay
/// counts.
///
/// ``SimulatedTraffic/run(arrivals:responder:observer:deciders:using:)``
/// reports everything in time order.
/// ``SimulatedTraffic/runSeparately(arrivals:responder:observer:deciders:using:)``
/// reports each request's events in order, one request after another in
/// order of arrival; ``reached(_:)`` says when nothing earlier can come.
public protocol TrafficObserver {
    /// An attempt reached the server (reported before the responder is
    /// asked about it).
    mutating func attemptStarted(_ attempt: TrafficAttempt)
    /// The shared decider's circuit breaker changed at `time`; only with
    /// ``SimulatedTraffic/Deciders/shared(_:)``.
    mutating func breakerChanged(_ transition: CircuitBreakerTransition, at time: Duration)
    /// Request `id` ended at `time`.
    mutating func requestFinished(id: Int, at time: Duration, result: TrafficResult)
    /// Nothing reported from now on happens before `time`: an observer
    /// that needs its events in time order can settle what came earlier.
    mutating func reached(_ time: Duration)
    /// A request began to wait `delay` at `time`, for `reason`.
    mutating func waited(_ delay: Duration, reason: WaitReason, at time: Duration)
}

extension TrafficObserver {
    /// Does nothing: an observer that counts needs no settling.
    public mutating func reached(_ time: Duration) {}

    /// Does nothing: most observers count attempts, not waits.
    public mutating func waited(_ delay: Duration, reason: WaitReason, at time: Duration) {}
}
