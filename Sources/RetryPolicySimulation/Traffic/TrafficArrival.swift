import RetryPolicyCore

/// A request that enters simulated traffic: when it starts and what it is.
public struct TrafficArrival: Sendable {
    /// Time since the simulation began.
    public var time: Duration
    /// Orders requests that have something to do at the same moment
    /// (lower first), and names the request to the responder and the
    /// observer. Unique within one run.
    public var id: Int
    public var request: RetryRequest

    public init(time: Duration, id: Int, request: RetryRequest = RetryRequest()) {
        self.time = time
        self.id = id
        self.request = request
    }
}

/// Where the requests of simulated traffic come from: an outage storm's
/// clients, or recorded requests read as the simulation reaches them.
///
/// ``SimulatedTraffic`` asks for the next arrival only when the simulation
/// reaches the time of the one before, so a source can stream: it never
/// holds more than it has handed out.
public protocol TrafficArrivals {
    /// The next request, or `nil` when there are no more. Arrivals come in
    /// order of `(time, id)`.
    mutating func next() -> TrafficArrival?
}
