import RetryPolicyCore

/// The distinct requests of simulated traffic, each kept once with a fresh
/// machine for it: a parked request refers to its own by index, and is
/// resumed in a copy of that machine. Traffic has few (a storm one, a
/// replay one per method and endpoint), and consecutive arrivals usually
/// repeat the one before, which is checked first.
struct DistinctRequests {
    /// The decider every machine runs under.
    let decider: RetryDecider
    private var requests: [RetryRequest] = []
    private var machines: [RequestStateMachine] = []
    private var indices: [RetryRequest: Int32] = [:]

    init(decider: RetryDecider) {
        self.decider = decider
    }

    /// The index of `request`, added if it is new.
    mutating func index(of request: RetryRequest) -> Int32 {
        if let last = requests.last, last == request { return Int32(requests.count - 1) }
        if let known = indices[request] { return known }
        let index = Int32(requests.count)
        requests.append(request)
        machines.append(
            RequestStateMachine(decider: decider, request: request, recordingNoAttempts: (), concurrentAttempts: false))
        indices[request] = index
        return index
    }

    subscript(index: Int32) -> RetryRequest { requests[Int(index)] }

    /// A fresh machine for request `index`, to resume a parked one in.
    func freshMachine(_ index: Int32) -> RequestStateMachine { machines[Int(index)] }
}
