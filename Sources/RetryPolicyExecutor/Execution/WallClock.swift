import RetryPolicyCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Timestamp {
    /// The system's real-time clock now.
    @usableFromInline package static func systemNow() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(nanosecondsSince1970: Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec))
    }
}

/// Maps a clock's instants to wall-clock time.
///
/// A policy needs wall time to read an HTTP-date `Retry-After` and to run
/// cooldowns, but an executor measures time with any `Clock` (a manual one
/// in tests). Anchoring a wall time to one instant and adding elapsed
/// clock time keeps both consistent: in tests an HTTP-date is interpreted
/// on the test's timeline, and in production a monotonic clock cannot make
/// a cooldown jump when the system clock is adjusted.
public struct WallClockAnchor<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public let instant: Instant
    public let timestamp: Timestamp

    package init(instant: Instant, timestamp: Timestamp) {
        self.instant = instant
        self.timestamp = timestamp
    }

    public func timestamp(at other: Instant) -> Timestamp {
        timestamp + instant.duration(to: other)
    }
}

