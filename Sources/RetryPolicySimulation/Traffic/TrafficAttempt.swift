import RetryPolicyCore

/// An attempt that simulated traffic sends to the server.
public struct TrafficAttempt: Sendable {
    /// The request's ``TrafficArrival/id``.
    public var id: Int
    /// 1 for the first attempt (a hedged request's copies are numbered
    /// the same way).
    public var number: Int
    /// Time since the simulation began.
    public var time: Duration
    /// The limit the policy sets on this attempt, if any: an answer that
    /// would take longer is cut there and becomes a `timeout`.
    public var timeLimit: Duration?
    /// Whether the request is hedged: attempts after the first may then
    /// run alongside earlier ones.
    public var hedged: Bool
}
