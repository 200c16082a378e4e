import RetryPolicyCore

/// What an outage storm counts as its traffic runs, kept as it goes: the
/// load histogram, the retry burst and the totals need no list of every
/// request, so a storm's memory follows its clients in flight. Every
/// count is the same whatever order the attempts come in, so a storm of
/// separate clients can run them one after another.
struct StormTally: TrafficObserver {
    let outage: Duration
    /// Width of one histogram window in nanoseconds: the configured one,
    /// widened tenfold while the storm is too long for
    /// ``OutageStorm/maximumWindows`` of them.
    private(set) var windowNanoseconds: Int64
    private(set) var load: [Int] = []
    private(set) var totalRequests = 0
    private(set) var outageRequests = 0
    private(set) var hedges = 0
    /// The retry burst; final after ``finish()``.
    var retryBurst: Int { bursts.largest }
    private(set) var succeeded = 0
    private(set) var failures: [StopReason: Int] = [:]
    private(set) var rejectedByCooldown = 0
    /// Attempts the adaptive rate limiter held back, and for how long in all.
    private(set) var rateLimitWaits = 0
    private(set) var rateLimitWaited = Duration.zero
    private(set) var finishedAt = Duration.zero
    private(set) var breakerPeriods: [OutageStorm.BreakerPeriod] = []
    private var bursts = RetryBursts(window: OutageStorm.burstWindow)
    /// Whether ``reached(_:)`` settles the retry burst: not in a part of a
    /// storm run in parts other than the first, whose retries the later
    /// parts' can still join.
    var settlesBursts = true

    init(outage: Duration, window: Duration) {
        self.outage = outage
        windowNanoseconds = max(window.nanosecondsSaturated, 1)
    }

    mutating func attemptStarted(_ attempt: TrafficAttempt) {
        totalRequests += 1
        if attempt.time < outage { outageRequests += 1 }
        count(attempt.time)
        guard attempt.number > 1 else { return }
        if attempt.hedged { hedges += 1 }
        bursts.add(attempt.time)
    }

    mutating func reached(_ time: Duration) {
        if settlesBursts { bursts.reached(time) }
    }

    /// Adds what `other` counted, for a part of the same storm's clients
    /// that arrived after every client of this one, and that settled no
    /// burst.
    mutating func merge(_ other: StormTally) {
        precondition(other.breakerPeriods.isEmpty, "only separate clients are counted in parts")
        var other = other
        while windowNanoseconds < other.windowNanoseconds { widen() }
        while other.windowNanoseconds < windowNanoseconds { other.widen() }
        if load.count < other.load.count { load.append(contentsOf: repeatElement(0, count: other.load.count - load.count)) }
        for (slot, requests) in other.load.enumerated() { load[slot] += requests }
        totalRequests += other.totalRequests
        outageRequests += other.outageRequests
        hedges += other.hedges
        succeeded += other.succeeded
        failures.merge(other.failures, uniquingKeysWith: +)
        rejectedByCooldown += other.rejectedByCooldown
        rateLimitWaits += other.rateLimitWaits
        rateLimitWaited += other.rateLimitWaited
        finishedAt = max(finishedAt, other.finishedAt)
        bursts.merge(other.bursts)
    }

    /// Settles the retry burst once the traffic has ended.
    mutating func finish() {
        bursts.finish()
    }

    /// Adds a request at `time` to its window, widening every window
    /// tenfold first when `time` lies beyond the last one allowed: a
    /// window `w` wide holds what the ten windows `w / 10` wide within it
    /// held, so the histogram is the one the final width gives.
    private mutating func count(_ time: Duration) {
        let nanoseconds = time.nanosecondsSaturated
        while nanoseconds / windowNanoseconds >= Int64(OutageStorm.maximumWindows) { widen() }
        let slot = Int(nanoseconds / windowNanoseconds)
        if slot >= load.count { load.append(contentsOf: repeatElement(0, count: slot - load.count + 1)) }
        load[slot] += 1
    }

    /// Makes every window ten times as wide.
    private mutating func widen() {
        windowNanoseconds = windowNanoseconds > Int64.max / 10 ? Int64.max : windowNanoseconds * 10
        var wider = [Int](repeating: 0, count: load.isEmpty ? 0 : (load.count - 1) / 10 + 1)
        for (slot, requests) in load.enumerated() { wider[slot / 10] += requests }
        load = wider
    }

    mutating func waited(_ delay: Duration, reason: WaitReason, at time: Duration) {
        guard reason == .rateLimit else { return }
        rateLimitWaits += 1
        rateLimitWaited += delay
    }

    mutating func breakerChanged(_ transition: CircuitBreakerTransition, at time: Duration) {
        if let last = breakerPeriods.indices.last, breakerPeriods[last].end == nil { breakerPeriods[last].end = time }
        switch transition {
        case .opened: breakerPeriods.append(OutageStorm.BreakerPeriod(state: .open, start: time, end: nil))
        case .halfOpened: breakerPeriods.append(OutageStorm.BreakerPeriod(state: .halfOpen, start: time, end: nil))
        case .closed: break
        }
    }

    mutating func requestFinished(id: Int, at time: Duration, result: TrafficResult) {
        switch result {
        case .succeeded:
            succeeded += 1
        case .failed(_, rejectedByCooldown: true):
            rejectedByCooldown += 1
        case .failed(let failure, rejectedByCooldown: false):
            failures[failure.reason, default: 0] += 1
        }
        finishedAt = max(finishedAt, time)
    }
}
