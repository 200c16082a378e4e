import RetryPolicyCore

/// The distinct requests of simulated traffic, each kept once: a parked
/// request refers to its own by index. Traffic has few (a storm one, a
/// replay one per method and endpoint), and consecutive arrivals usually
/// repeat the one before, which is checked first.
struct DistinctRequests {
    private var requests: [RetryRequest] = []
    private var indices: [RetryRequest: Int32] = [:]

    var count: Int { requests.count }

    /// The index of `request`, added if it is new.
    mutating func index(of request: RetryRequest) -> Int32 {
        if let last = requests.last, last == request { return Int32(requests.count - 1) }
        if let known = indices[request] { return known }
        let index = Int32(requests.count)
        requests.append(request)
        indices[request] = index
        return index
    }

    subscript(index: Int32) -> RetryRequest { requests[Int(index)] }
}
