import RetryPolicyCore

/// What simulated traffic reports as it runs, in time order: what a storm
/// or a replay counts.
public protocol TrafficObserver {
    /// An attempt reached the server (reported before the responder is
    /// asked about it).
    mutating func attemptStarted(_ attempt: TrafficAttempt)
    /// The shared decider's circuit breaker changed at `time`; only with
    /// ``SimulatedTraffic/Deciders/shared(_:)``.
    mutating func breakerChanged(_ transition: CircuitBreakerTransition, at time: Duration)
    /// Request `id` ended at `time`.
    mutating func requestFinished(id: Int, at time: Duration, result: TrafficResult)
}
