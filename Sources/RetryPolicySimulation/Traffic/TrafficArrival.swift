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
