import RetryPolicyCore

/// A test clock whose sleeps end at once by moving its time forward, and
/// which keeps every sleep: code under test runs through real backoffs
/// without waiting.
public final class SkippingClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = LockedValue(Instant(offset: .zero))
    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .nanoseconds(1) }
    /// Every sleep, in order.
    package let slept = LockedValue<[Duration]>([])
    public var sleeps: [Duration] { slept.withLock { $0 } }

    public init() {}

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        current.withLock { now in
            slept.withLock { $0.append(deadline.offset - now.offset) }
            now = max(now, deadline)
        }
    }
}
