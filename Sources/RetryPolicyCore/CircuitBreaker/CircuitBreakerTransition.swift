/// A change of a breaker's state, as reported to events, logs and metrics.
public enum CircuitBreakerTransition: Hashable, Sendable, CustomStringConvertible {
    /// Why a breaker opened.
    public enum OpenReason: String, Hashable, Sendable {
        /// The failure ratio reached the threshold.
        case failureRatio = "failure_ratio"
        /// Enough failures in a row.
        case consecutiveFailures = "consecutive_failures"
        /// A half-open probe failed.
        case probeFailed = "probe_failed"
        /// Another process sharing the breaker (through a
        /// ``RetryStateStore``) opened it.
        case shared = "shared"
    }

    /// The breaker opened until `until`, a break of `breakDuration`.
    case opened(until: Timestamp, breakDuration: Duration, reason: OpenReason)
    /// The break is over: probes may go through.
    case halfOpened
    /// Every probe succeeded.
    case closed

    /// `open`, `half_open` or `closed`: the state entered.
    public var state: String {
        switch self {
        case .opened: "open"
        case .halfOpened: "half_open"
        case .closed: "closed"
        }
    }

    public var description: String {
        switch self {
        case .opened(_, let length, let reason): "circuit opened for \(length.formattedForHumans) (\(reason.rawValue))"
        case .halfOpened: "circuit half-open"
        case .closed: "circuit closed"
        }
    }
}
