import RetryPolicyCore

/// An outage storm's clients as traffic arrivals: client `i` (its id)
/// starts at a time drawn uniformly within the spread, all drawn up front
/// in client order, then handed out in order of `(time, client)`.
struct StormArrivals: TrafficArrivals {
    /// The arrivals handed out are those from `position` up to `end`, in
    /// the order of every client's.
    private var end: Int
    /// Start times in nanoseconds with their clients, sorted; empty when
    /// every client starts at zero.
    private var starts: [(nanoseconds: Int64, client: Int32)] = []
    private var position = 0

    init<G: RandomNumberGenerator>(clients: Int, spread: Duration, using generator: inout G) {
        precondition(clients <= Int(Int32.max), "a storm has at most \(Int32.max) clients")
        end = clients
        guard spread > .zero else { return }
        let upper = spread.nanosecondsSaturated
        starts.reserveCapacity(clients)
        for client in 0..<clients {
            starts.append((Int64.random(in: 0...upper, using: &generator), Int32(client)))
        }
        starts.sort { ($0.nanoseconds, $0.client) < ($1.nanoseconds, $1.client) }
    }

    /// These arrivals in `parts` consecutive stretches of nearly equal
    /// length, in order: for separate clients run in parts.
    func split(into parts: Int) -> [StormArrivals] {
        let count = end - position
        return (0..<parts).map { part in
            var stretch = self
            stretch.position = position + count * part / parts
            stretch.end = position + count * (part + 1) / parts
            return stretch
        }
    }

    mutating func next() -> TrafficArrival? {
        guard position < end else { return nil }
        defer { position += 1 }
        if starts.isEmpty { return TrafficArrival(time: .zero, id: position) }
        let start = starts[position]
        return TrafficArrival(time: .nanoseconds(start.nanoseconds), id: Int(start.client))
    }
}
