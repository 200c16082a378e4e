/// The numbers of a circuit breaker: when calls under a policy fail often
/// enough, stop sending them for a while, then let a few probes through to
/// see whether the server has recovered.
///
/// A breaker counts *calls* (attempts, first tries and retries alike) in a
/// sliding window, by count or by time. It opens when, with at least
/// ``minimumCalls`` calls in the window, the share of failures reaches
/// ``failureRatio``, or after ``consecutiveFailures`` failures in a row.
/// While open every attempt is rejected at once with
/// ``StopReason/circuitOpen`` and the kind ``error``, without being sent.
/// After ``breakDuration`` (growing by ``breakMultiplier`` each time the
/// breaker opens again without closing in between, up to ``maxBreak``) the
/// breaker is half-open: ``halfOpenProbes`` calls go through; if they all
/// succeed it closes, the first failure opens it again.
public struct CircuitBreakerConfiguration: Hashable, Sendable {
    /// How the window of recent calls is kept.
    public enum Sampling: Hashable, Sendable {
        /// The last `calls` calls.
        case count(Int)
        /// The calls of the last `window`, kept in ten buckets (a call
        /// leaves the window with its bucket).
        case time(Duration)
    }

    /// Which outcomes count as failures; an outcome no list names counts as
    /// a success. With every list empty (the default), a failure is an
    /// outcome the policy retries: the rule (or default) that decides it
    /// says `retry`, whether or not this attempt could still be retried.
    public struct Failures: Hashable, Sendable {
        /// Indexes in ``Policy/rules``: an outcome one of them decides.
        public var rules: [Int]
        /// An outcome that maps to one of these kinds.
        public var errors: Set<SDKError.Kind>
        /// A response whose status one of these covers.
        public var statuses: [StatusPattern]

        public init(rules: [Int] = [], errors: Set<SDKError.Kind> = [], statuses: [StatusPattern] = []) {
            self.rules = rules
            self.errors = errors
            self.statuses = statuses
        }

        /// What the policy retries.
        public static let retried = Failures()

        package var isRetried: Bool { rules.isEmpty && errors.isEmpty && statuses.isEmpty }
    }

    public var sampling: Sampling
    /// Failures over calls in the window at which the breaker opens,
    /// `0 < ratio <= 1`.
    public var failureRatio: Double
    /// Calls the window must hold before the ratio is considered.
    public var minimumCalls: Int
    /// Failures in a row that open the breaker whatever the ratio; `nil`
    /// turns the rule off.
    public var consecutiveFailures: Int?
    /// How long the breaker stays open the first time.
    public var breakDuration: Duration
    /// Each reopening without closing in between multiplies the break by
    /// this (1: the break never grows).
    public var breakMultiplier: Double
    /// The longest break; `nil` when the break does not grow.
    public var maxBreak: Duration?
    /// Calls let through while half-open; all must succeed to close.
    public var halfOpenProbes: Int
    public var failures: Failures
    /// The kind a rejected attempt fails with.
    public var error: SDKError.Kind
    public var location: SourceLocation?

    public init(
        sampling: Sampling = .count(100),
        failureRatio: Double = 0.5,
        minimumCalls: Int = 20,
        consecutiveFailures: Int? = nil,
        breakDuration: Duration = .seconds(30),
        breakMultiplier: Double = 1,
        maxBreak: Duration? = nil,
        halfOpenProbes: Int = 5,
        failures: Failures = .retried,
        error: SDKError.Kind = .status5xx,
        location: SourceLocation? = nil
    ) {
        self.sampling = sampling
        self.failureRatio = failureRatio
        self.minimumCalls = minimumCalls
        self.consecutiveFailures = consecutiveFailures
        self.breakDuration = breakDuration
        self.breakMultiplier = breakMultiplier
        self.maxBreak = maxBreak
        self.halfOpenProbes = halfOpenProbes
        self.failures = failures
        self.error = error
        self.location = location
    }

    /// The longest break when the breaker has no ``maxBreak`` but grows.
    package static let defaultLongestBreak = Duration.seconds(86_400 * 100)

    /// Openings in a row beyond which nothing is counted: a bound on a
    /// number a peer sharing the breaker can also send, so that counting
    /// one more never overflows.
    public static let maximumOpenings = 1_000_000

    /// The break after the breaker opened `openings` times in a row (1 for
    /// the first): ``breakDuration`` × ``breakMultiplier``^(openings - 1),
    /// at most ``maxBreak``. In closed form, saturating: any `openings`,
    /// up to `Int.max`, costs a few dozen multiplications.
    public func breakDuration(opening openings: Int) -> Duration {
        guard breakMultiplier != 1, openings > 1 else { return breakDuration }
        let cap = maxBreak ?? Self.defaultLongestBreak
        let first = Double(breakDuration.nanosecondsSaturated)
        guard first > 0 else { return min(.zero, cap) }
        guard breakMultiplier > 0 || breakMultiplier.isNaN else { return min(.zero, cap) }
        let nanoseconds = first * Self.power(breakMultiplier, openings - 1)
        // NaN (a NaN multiplier) and anything past Int64 saturate, as the
        // stepwise product did.
        let length: Duration = nanoseconds < 9.2e18 ? .nanoseconds(Int64(nanoseconds)) : .nanoseconds(Int64.max)
        return min(length, cap)
    }

    /// The longest break this configuration ever asks for: what a break
    /// shared by a peer is cut to. The first break, or the cap the
    /// growing break reaches (a shrinking one starts longest).
    public var longestBreak: Duration { max(breakDuration, breakDuration(opening: .max)) }

    /// `base` to the power `exponent` (≥ 0) by repeated squaring: at most
    /// 2 × 63 multiplications; past the range of `Double` it is infinity
    /// (or zero), never a trap.
    private static func power(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var square = base
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result *= square }
            remaining >>= 1
            if remaining > 0 { square *= square }
        }
        return result
    }

    /// The most calls the window can hold: the count window's size, or
    /// unbounded for a time window.
    package var windowCapacity: Int? {
        if case .count(let calls) = sampling { calls } else { nil }
    }
}

extension Duration {
    /// `self × factor`, saturating at about 292 years.
    func multiplied(saturatingBy factor: Double) -> Duration {
        let nanoseconds = Double(nanosecondsSaturated) * factor
        if !(nanoseconds < 9.2e18) { return .nanoseconds(Int64.max) }
        return .nanoseconds(Int64(max(0, nanoseconds)))
    }
}
