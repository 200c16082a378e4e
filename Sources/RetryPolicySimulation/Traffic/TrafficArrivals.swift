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
