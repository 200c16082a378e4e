/// The token bucket that paces attempts (botocore's `TokenBucket` in
/// `bucket.py`): it fills at the fill rate up to a capacity of the rate
/// itself (at least 1), and an attempt takes one token.
///
/// Unlike botocore's, which blocks a thread until a token is there, an
/// attempt reserves its token at once: the balance may go below zero, and
/// the attempt waits until the fill brings it back. Taken one after
/// another the waits are botocore's; concurrent attempts queue in the
/// order they reserved instead of racing for the lock.
public struct RateLimitingBucket: Hashable, Sendable {
    public let minimumRate: Double
    /// Tokens per second (≥ ``minimumRate``).
    public private(set) var fillRate: Double
    /// The most tokens the bucket holds (≥ 1).
    public private(set) var capacity: Double
    /// Tokens now; below zero while attempts wait for reserved tokens.
    public private(set) var balance: Double = 0
    private var lastFill: Timestamp

    /// An empty bucket at `start`, filling at `maximumRate`.
    public init(maximumRate: Double = 1, minimumRate: Double = 0.5, start: Timestamp) {
        self.minimumRate = minimumRate
        fillRate = max(maximumRate, minimumRate)
        capacity = max(maximumRate, 1)
        lastFill = start
    }

    /// Fills to `now`, then fills at `rate` from then on (botocore's
    /// `max_rate` setter).
    public mutating func setMaximumRate(_ rate: Double, at now: Timestamp) {
        fill(to: now)
        let usable = rate.isNaN ? minimumRate : rate
        fillRate = max(usable, minimumRate)
        capacity = max(usable, 1)
        balance = min(balance, capacity)
    }

    /// Reserves one token at `now` and returns how long the attempt waits
    /// for it (zero when it was there), or `nil`, reserving nothing, when
    /// that wait would exceed `maximumWait`.
    public mutating func reserve(at now: Timestamp, maximumWait: Duration? = nil) -> Duration? {
        fill(to: now)
        let remaining = balance - 1
        if remaining >= 0 {
            balance = remaining
            return .zero
        }
        let wait = Duration.saturating(seconds: -remaining / fillRate)
        if let maximumWait, wait > maximumWait { return nil }
        balance = remaining
        return wait
    }

    /// Returns a reserved token the attempt will not use, at `now`.
    public mutating func giveBack(at now: Timestamp) {
        fill(to: now)
        balance = min(capacity, balance + 1)
    }

    private mutating func fill(to now: Timestamp) {
        guard now > lastFill else { return }
        let added = now.duration(since: lastFill).secondsAsDouble * fillRate
        balance = min(capacity, balance + added)
        lastFill = now
    }
}
