/// A point in wall-clock time, in nanoseconds since 1970-01-01T00:00:00Z.
///
/// The decider needs wall time for two things only: resolving a
/// `Retry-After` HTTP-date or a Unix-time reset header, and expiring
/// cooldowns. It is passed in, never read, so decisions stay pure and tests
/// control time completely.
public struct Timestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var nanosecondsSince1970: Int64

    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }
    public init(secondsSince1970: Int64) {
        self.nanosecondsSince1970 = secondsSince1970.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? (secondsSince1970 < 0 ? .min : .max) : secondsSince1970 * 1_000_000_000
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.nanosecondsSince1970 < rhs.nanosecondsSince1970
    }

    /// Saturating, so that absurd server values cannot trap.
    public static func + (lhs: Timestamp, rhs: Duration) -> Timestamp {
        let (sum, overflow) = lhs.nanosecondsSince1970.addingReportingOverflow(rhs.nanosecondsSaturated)
        if overflow { return Timestamp(nanosecondsSince1970: rhs < .zero ? .min : .max) }
        return Timestamp(nanosecondsSince1970: sum)
    }

    /// The duration from `other` to `self` (negative when `other` is later).
    public func duration(since other: Timestamp) -> Duration {
        let (difference, overflow) = nanosecondsSince1970.subtractingReportingOverflow(other.nanosecondsSince1970)
        if overflow { return .nanoseconds(nanosecondsSince1970 < other.nanosecondsSince1970 ? Int64.min : Int64.max) }
        return .nanoseconds(difference)
    }

    public var description: String { "@\(nanosecondsSince1970 / 1_000_000_000)s" }
}
