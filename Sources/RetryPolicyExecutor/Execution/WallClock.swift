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
    public static func systemNow() -> Timestamp {
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

    public init(instant: Instant, timestamp: Timestamp) {
        self.instant = instant
        self.timestamp = timestamp
    }

    public func timestamp(at other: Instant) -> Timestamp {
        timestamp + instant.duration(to: other)
    }
}

/// Where an executor's clock sits in wall-clock time: anchored when the
/// executor is made (a wall time given for `clock.now`), or on the first
/// request that needs a wall time (the system's real-time clock, read then
/// beside the executor's clock).
///
/// Anchoring late keeps the executor's promise that it reads its clock only
/// when something needs the time: a request under a policy with no
/// deadline, cooldown, breaker, budget or date-valued `Retry-After`, and no
/// hook to report to, never asks for a wall time, so making an executor and
/// running it reads the clock only to wait. Once anchored, a look-up is an
/// acquiring load and no lock.
@usableFromInline
final class WallClockReference<C: Clock>: @unchecked Sendable where C.Duration == Duration {
    /// Set, under `lock`, before `ready` is released; read only after
    /// `ready` is acquired.
    private var anchor: WallClockAnchor<C.Instant>?
    private let ready = AtomicInt64(0)
    private let lock = LockedValue<Void>(())

    /// Anchored now, at `anchor`.
    init(_ anchor: WallClockAnchor<C.Instant>) {
        self.anchor = anchor
        ready.store(1, ordering: .releasing)
    }

    /// Anchored on first use, from the system's real-time clock.
    init() {}

    /// The wall-clock time of `instant`, anchoring first if nothing has.
    @usableFromInline
    func timestamp(at instant: C.Instant, clock: C) -> Timestamp {
        anchored(clock: clock).timestamp(at: instant)
    }

    /// The anchor, made now (one reading of each clock) if there is none.
    @usableFromInline
    func anchored(clock: C) -> WallClockAnchor<C.Instant> {
        if ready.load(ordering: .acquiring) == 1, let anchor { return anchor }
        return lock.withLock { _ in
            if let anchor { return anchor }
            let made = WallClockAnchor(instant: clock.now, timestamp: .systemNow())
            anchor = made
            ready.store(1, ordering: .releasing)
            return made
        }
    }
}
