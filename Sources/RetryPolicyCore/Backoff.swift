/// How long to wait before retry *k* when the server gave no delay.
///
/// Exponential (the default): `base(k) = min(initial × multiplier^(k-1), max)`;
/// linear: `base(k) = min(initial + step × (k-1), max)`; or a function of
/// `k` defined in code (``Growth/custom(_:)``, from Swift only: a policy
/// file keeps to the named shapes so that lint and `table` can read it).
/// Jitter then spreads the delay so that clients that failed together do
/// not retry together, and ``min`` is the floor of the result.
public struct Backoff: Hashable, Sendable {
    /// How the base delay is randomised.
    public enum Jitter: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Exactly the base delay. Synchronises clients; lint warns.
        case none
        /// Uniform in `[0, base]` (AWS "full jitter").
        case full
        /// Uniform in `[base/2, base]`.
        case equal
        /// Uniform in `[initial, min(max, 3 × previous delay)]`.
        case decorrelated

        public var description: String { rawValue }
    }

    /// How the base delay grows from one retry to the next. Each shape
    /// carries only its own parameter, so a linear backoff with a
    /// multiplier cannot be built.
    public enum Growth: Hashable, Sendable {
        /// `initial × multiplier^(k-1)`; multiplier 1 is a constant delay.
        case exponential(multiplier: Double)
        /// `initial + step × (k-1)`; step 0 is a constant delay.
        case linear(step: Duration)
        /// A function of the retry number, defined in code. Capped by
        /// ``Backoff/max`` and floored by ``Backoff/min`` like the others.
        case custom(CustomBackoff)

        /// Every shape a policy file can name (`shape:`), the default
        /// first, each with its parameter's file default (zero for a
        /// required one). The decoder reads `shape:` against this list and
        /// the schema's `shape` enum agrees with it (`BackoffShapeTests`).
        public static let named: [Growth] = fileShapes.map { $0.growth($0.parameter.fileDefault ?? $0.parameter.values.zero)! }

        /// The name a policy file gives the shape (`shape: linear`);
        /// `nil` for one defined in code, which has no file form.
        public var name: String? { fileForm?.shape.name }

        /// The shape's own parameter as a policy file states it, under
        /// its `backoff` key (`multiplier`, `step`), which any other shape
        /// refuses; `nil` for a shape without one.
        package var parameter: (key: String, value: Parameter)? {
            fileForm.map { ($0.shape.parameter.key, $0.value) }
        }

        /// The shape's file description and its parameter's value; `nil`
        /// for a shape defined in code. The one switch from a growth to its
        /// file form: a new case does not compile without its entry.
        package var fileForm: (shape: FileShape, value: Parameter)? {
            switch self {
            case .exponential(let multiplier): (FileShape.exponential, .number(multiplier))
            case .linear(let step): (FileShape.linear, .duration(step))
            case .custom: nil
            }
        }

        /// Every shape a policy file can name, the default first. The
        /// decoder, the validator's range checks and the loader's list of
        /// `backoff` keys read this table; the schema states the same
        /// (`BackoffShapeTests`, `SchemaAgreementTests`).
        package static let fileShapes: [FileShape] = [.exponential, .linear]

        /// One shape as a policy file states it: its `shape:` name and its
        /// one parameter.
        package struct FileShape: Sendable {
            package let name: String
            package let parameter: ParameterForm
            /// The shape with its parameter's value; `nil` for a value of
            /// the other kind.
            package let growth: @Sendable (Parameter) -> Growth?

            package static let exponential = FileShape(
                name: "exponential",
                parameter: ParameterForm(key: "multiplier", values: .number(0...100), fileDefault: .number(2)),
                growth: { if case .number(let multiplier) = $0 { .exponential(multiplier: multiplier) } else { nil } })

            package static let linear = FileShape(
                name: "linear",
                parameter: ParameterForm(
                    key: "step", values: .duration, fileDefault: nil,
                    whyRequired: "adds it per retry", suggestion: "write step: 0s for a constant delay"),
                growth: { if case .duration(let step) = $0 { .linear(step: step) } else { nil } })
        }

        /// A shape's parameter: its key under `backoff`, the values it
        /// admits, and what a file that leaves it out gets.
        package struct ParameterForm: Sendable {
            package let key: String
            package let values: Values
            /// The value when a file leaves the key out; `nil` makes the
            /// key required.
            package let fileDefault: Parameter?
            /// Why a required parameter is needed and what to write, for
            /// the missing-key error.
            package let whyRequired: String
            package let suggestion: String

            package init(key: String, values: Values, fileDefault: Parameter?, whyRequired: String = "", suggestion: String = "") {
                self.key = key
                self.values = values
                self.fileDefault = fileDefault
                self.whyRequired = whyRequired
                self.suggestion = suggestion
            }
        }

        /// The values a parameter admits.
        package enum Values: Sendable {
            /// A number in the range.
            case number(ClosedRange<Double>)
            /// A duration from zero to the 100-day ceiling (``Backoff/ceiling``).
            case duration

            /// The smallest value admitted.
            package var zero: Parameter {
                switch self {
                case .number(let range): .number(range.lowerBound)
                case .duration: .duration(.zero)
                }
            }
        }

        /// The value of a shape's parameter, by the kind of value it is.
        package enum Parameter: Hashable, Sendable {
            case number(Double)
            case duration(Duration)
        }
    }

    /// A base delay defined in Swift: `delay(k)` before retry `k` (1 for
    /// the first retry). Two are equal when their names are, which is what
    /// lets a policy holding one stay `Hashable` and diffable.
    public struct CustomBackoff: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public let delay: @Sendable (_ retry: Int) -> Duration

        public init(name: String, delay: @escaping @Sendable (_ retry: Int) -> Duration) {
            self.name = name
            self.delay = delay
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
        public var description: String { name }
    }

    public var initial: Duration
    /// The largest base delay; `nil` lets growth go on (to the 100-day
    /// ceiling every duration has).
    public var max: Duration?
    /// The smallest delay, applied after jitter: full jitter's draws near
    /// zero become at least this (zero, the default, changes nothing).
    public var min: Duration = .zero
    public var growth: Growth
    public var jitter: Jitter
    public var location: SourceLocation?

    /// An exponential backoff's multiplier (1 for a linear one, which
    /// does not multiply).
    public var multiplier: Double {
        if case .exponential(let multiplier) = growth { return multiplier }
        return 1
    }

    /// What a linear backoff adds per retry (zero for an exponential one).
    public var step: Duration {
        if case .linear(let step) = growth { return step }
        return .zero
    }

    /// An exponential backoff: `min(initial × multiplier^(k-1), max)`
    /// before retry `k`.
    public init(
        initial: Duration,
        max: Duration?,
        multiplier: Double = 2,
        jitter: Jitter = .full,
        min: Duration = .zero,
        location: SourceLocation? = nil
    ) {
        self.init(
            initial: initial, max: max, growth: .exponential(multiplier: multiplier), jitter: jitter, min: min,
            location: location)
    }

    public init(
        initial: Duration, max: Duration?, growth: Growth, jitter: Jitter = .full, min: Duration = .zero,
        location: SourceLocation? = nil
    ) {
        self.initial = initial
        self.max = max
        self.min = min
        self.growth = growth
        self.jitter = jitter
        self.location = location
    }

    /// A linear backoff: `min(initial + step × (k-1), max)` before retry `k`.
    public static func linear(
        initial: Duration, step: Duration, max: Duration?, jitter: Jitter = .full, min: Duration = .zero,
        location: SourceLocation? = nil
    ) -> Backoff {
        Backoff(initial: initial, max: max, growth: .linear(step: step), jitter: jitter, min: min, location: location)
    }

    /// A backoff whose base delay before retry `k` is `delay(k)`, defined
    /// in code; `max` caps it and jitter spreads it as for the named
    /// shapes. `initial` is `delay(1)`.
    public static func custom(
        _ name: String, max: Duration? = nil, jitter: Jitter = .full, min: Duration = .zero,
        delay: @escaping @Sendable (_ retry: Int) -> Duration
    ) -> Backoff {
        Backoff(
            initial: delay(1), max: max, growth: .custom(CustomBackoff(name: name, delay: delay)), jitter: jitter,
            min: min)
    }

    /// The cap, or the ceiling every duration has when there is none.
    var effectiveMax: Duration { max ?? Self.ceiling }

    /// 100 days: the longest duration a policy file can state, and the
    /// cap of an uncapped backoff.
    public static let ceiling = Duration.seconds(100 * 86_400)

    /// No waiting at all.
    public static let immediate = Backoff(initial: .zero, max: .zero, multiplier: 1, jitter: .none)

    /// The un-jittered delay before retry `k` (k = 1 is the first retry).
    /// Computed in floating point and clamped before conversion, so large
    /// `k` or multipliers saturate at `max` instead of overflowing.
    package func base(forRetry k: Int) -> Duration {
        let initialNanos = Double(initial.nanosecondsSaturated)
        let maxNanos = Double(effectiveMax.nanosecondsSaturated)
        let exponent = Double(Swift.max(k, 1) - 1)
        var value = initialNanos
        switch growth {
        case .exponential(let multiplier):
            if multiplier != 1 && exponent > 0 {
                value = initialNanos * pow(multiplier, exponent)
            }
        case .linear(let step):
            value = initialNanos + Double(step.nanosecondsSaturated) * exponent
        case .custom(let custom):
            value = Double(custom.delay(Swift.max(k, 1)).nanosecondsSaturated)
        }
        if !(value <= maxNanos) { value = maxNanos }  // also catches NaN and +inf
        if value < 0 { value = 0 }
        return .nanoseconds(Int64(value))
    }

    /// The range jitter can produce for retry `k`.
    ///
    /// - Parameters:
    ///   - k: the retry, 1 for the first (after attempt 1).
    ///   - previousDelay: the delay actually used before the
    ///     previous retry; only decorrelated jitter uses it, and the first
    ///     retry treats it as `initial`.
    package func bounds(forRetry k: Int, previousDelay: Duration?) -> ClosedRange<Duration> {
        floored(jitteredBounds(forRetry: k, previousDelay: previousDelay))
    }

    /// `range` with both ends raised to the floor.
    private func floored(_ range: ClosedRange<Duration>) -> ClosedRange<Duration> {
        guard min > .zero else { return range }
        return Swift.max(range.lowerBound, min)...Swift.max(range.upperBound, min)
    }

    /// `known` is `base(forRetry: k)` when the caller has it.
    private func jitteredBounds(forRetry k: Int, previousDelay: Duration?, base known: Duration? = nil)
        -> ClosedRange<Duration>
    {
        switch jitter {
        case .none:
            let base = known ?? base(forRetry: k)
            return base...base
        case .full:
            return .zero...(known ?? base(forRetry: k))
        case .equal:
            let base = known ?? base(forRetry: k)
            return (base / 2)...base
        case .decorrelated:
            let cap = effectiveMax
            let lower = Swift.min(initial, cap)
            let previous = previousDelay ?? initial
            let tripled = Duration.nanoseconds(Self.saturatingTriple(previous.nanosecondsSaturated))
            let upper = Swift.max(lower, Swift.min(cap, tripled))
            return lower...upper
        }
    }

    /// A jittered delay for retry `k`, drawn from `generator`.
    public func delay<G: RandomNumberGenerator>(
        forRetry k: Int,
        previousDelay: Duration?,
        using generator: inout G
    ) -> Duration {
        delay(forRetry: k, previousDelay: previousDelay, base: nil, using: &generator)
    }

    /// The delay alone, with the base delay when already known: what
    /// ``delayAndBounds(forRetry:previousDelay:base:using:)`` draws,
    /// without building the range an unjittered backoff has no use for.
    func delay<G: RandomNumberGenerator>(
        forRetry k: Int,
        previousDelay: Duration?,
        base known: Duration?,
        using generator: inout G
    ) -> Duration {
        if case .none = jitter { return Swift.max(known ?? base(forRetry: k), min) }
        return delayAndBounds(forRetry: k, previousDelay: previousDelay, base: known, using: &generator).delay
    }

    /// ``delay(forRetry:previousDelay:using:)`` and the
    /// `bounds(forRetry:previousDelay:)` it was drawn from, computing the
    /// jittered range once.
    func delayAndBounds<G: RandomNumberGenerator>(
        forRetry k: Int,
        previousDelay: Duration?,
        base known: Duration? = nil,
        using generator: inout G
    ) -> (delay: Duration, bounds: ClosedRange<Duration>) {
        // Floored after the draw: a seeded draw above the floor is the
        // same delay as without one, so adding a floor changes only the
        // delays it raises.
        if case .none = jitter {
            // Nothing to draw.
            let base = delay(forRetry: k, previousDelay: previousDelay, base: known, using: &generator)
            return (base, base...base)
        }
        let range = jitteredBounds(forRetry: k, previousDelay: previousDelay, base: known)
        let low = range.lowerBound.nanosecondsSaturated
        let high = range.upperBound.nanosecondsSaturated
        let drawn = low >= high ? range.lowerBound : .nanoseconds(Int64.random(in: low...high, using: &generator))
        return (Swift.max(drawn, min), floored(range))
    }

    private static func saturatingTriple(_ value: Int64) -> Int64 {
        let (result, overflow) = value.multipliedReportingOverflow(by: 3)
        return overflow ? .max : result
    }
}

/// `x^y` for the non-negative exponents backoff needs, without Foundation.
@usableFromInline
func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(Swift.min(exponent, 4096))
    var factor = base
    while remaining > 0 {
        if remaining & 1 == 1 { result *= factor }
        factor *= factor
        remaining >>= 1
        if result.isInfinite { return result }
    }
    return result
}
