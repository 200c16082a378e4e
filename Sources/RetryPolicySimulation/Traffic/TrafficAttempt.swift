import RetryPolicyCore

/// An attempt that simulated traffic sends to the server.
public struct TrafficAttempt: Sendable {
    /// The request's ``TrafficArrival/id``.
    public var id: Int
    /// The request, as it arrived: its method and endpoint, say, for a
    /// server that answers by endpoint.
    public var request: RetryRequest
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
    package var hedged: Bool

    public init(id: Int, request: RetryRequest, number: Int, time: Duration, timeLimit: Duration?, hedged: Bool) {
        self.id = id
        self.request = request
        self.number = number
        self.time = time
        self.timeLimit = timeLimit
        self.hedged = hedged
    }
}
