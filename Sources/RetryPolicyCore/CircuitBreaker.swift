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

        public var isRetried: Bool { rules.isEmpty && errors.isEmpty && statuses.isEmpty }
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

    /// The break after the breaker opened `openings` times in a row (1 for
    /// the first): ``breakDuration`` × ``breakMultiplier``^(openings - 1),
    /// at most ``maxBreak``.
    public func breakDuration(opening openings: Int) -> Duration {
        guard breakMultiplier != 1, openings > 1 else { return breakDuration }
        let cap = maxBreak ?? .seconds(86_400 * 100)
        var length = breakDuration
        for _ in 1..<openings {
            if length >= cap { return cap }
            length = length.multiplied(saturatingBy: breakMultiplier)
        }
        return min(length, cap)
    }

    /// The most calls the window can hold: the count window's size, or
    /// unbounded for a time window.
    public var windowCapacity: Int? {
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

/// The states of one circuit breaker and the events that move it: a
/// struct with `mutating` events and time passed in, no clock read.
///
/// Calls are admitted with ``admit(at:)``, which hands out a ``Ticket``;
/// their results come back with ``record(failure:ticket:at:)``. A result
/// whose ticket is from an earlier state (a call admitted while closed
/// that ends after the breaker opened, or a probe of an earlier half-open
/// period) is ignored, so only probes decide a half-open breaker.
public struct CircuitBreakerStateMachine: Sendable {
    /// What a call carries from admission to its result.
    public struct Ticket: Hashable, Sendable {
        let generation: UInt64
    }

    public enum Admission: Hashable, Sendable {
        case proceed(Ticket)
        /// Rejected: open (`retryAfter` is what is left of the break) or
        /// half-open with every probe already out (`nil`).
        case reject(retryAfter: Duration?)
    }

    /// The state, as seen from outside.
    public enum State: Hashable, Sendable {
        case closed
        case open(until: Timestamp)
        case halfOpen
    }

    private enum Phase: Sendable {
        case closed
        case open(until: Timestamp)
        case halfOpen(admitted: Int, succeeded: Int)
    }

    public let configuration: CircuitBreakerConfiguration
    private var phase = Phase.closed
    /// Changes with every state change; tickets of earlier states are stale.
    private var generation: UInt64 = 0
    /// Times opened since the breaker last closed.
    private var openings = 0
    private var consecutive = 0
    private var window: Window
    /// A change adopted from elsewhere (a breaker shared through a store)
    /// and not yet reported: the next admission reports it.
    private var adopted: CircuitBreakerTransition?

    public init(configuration: CircuitBreakerConfiguration) {
        self.configuration = configuration
        window = Window(configuration.sampling)
    }

    public var state: State {
        switch phase {
        case .closed: .closed
        case .open(let until): .open(until: until)
        case .halfOpen: .halfOpen
        }
    }

    /// Calls and failures in the window now (closed state only; the window
    /// is emptied when the breaker opens).
    package var windowCounts: (calls: Int, failures: Int) { (window.calls, window.failures) }

    // MARK: Events

    /// A call wants to go through at `now`. An open breaker whose break is
    /// over becomes half-open first (the returned transition).
    public mutating func admit(at now: Timestamp) -> (Admission, CircuitBreakerTransition?) {
        if let adopted {
            self.adopted = nil
            let (admission, transition) = admit(at: now)
            return (admission, transition ?? adopted)
        }
        switch phase {
        case .closed:
            return (.proceed(Ticket(generation: generation)), nil)
        case .open(let until):
            if now < until { return (.reject(retryAfter: until.duration(since: now)), nil) }
            enter(.halfOpen(admitted: 1, succeeded: 0))
            return (.proceed(Ticket(generation: generation)), .halfOpened)
        case .halfOpen(let admitted, let succeeded):
            guard admitted < configuration.halfOpenProbes else { return (.reject(retryAfter: nil), nil) }
            phase = .halfOpen(admitted: admitted + 1, succeeded: succeeded)
            return (.proceed(Ticket(generation: generation)), nil)
        }
    }

    /// The call admitted with `ticket` ended at `now`, as a failure or not.
    public mutating func record(failure: Bool, ticket: Ticket, at now: Timestamp) -> CircuitBreakerTransition? {
        guard ticket.generation == generation else { return nil }
        switch phase {
        case .open:
            return nil
        case .halfOpen(let admitted, let succeeded):
            if failure { return open(at: now, reason: .probeFailed) }
            if succeeded + 1 >= configuration.halfOpenProbes {
                openings = 0
                consecutive = 0
                window.reset()
                enter(.closed)
                return .closed
            }
            phase = .halfOpen(admitted: admitted, succeeded: succeeded + 1)
            return nil
        case .closed:
            consecutive = failure ? consecutive + 1 : 0
            window.add(failure: failure, at: now)
            if let limit = configuration.consecutiveFailures, consecutive >= limit {
                return open(at: now, reason: .consecutiveFailures)
            }
            if window.calls >= max(configuration.minimumCalls, 1),
                Double(window.failures) >= configuration.failureRatio * Double(window.calls)
            {
                return open(at: now, reason: .failureRatio)
            }
            return nil
        }
    }

    /// Times the breaker opened since it last closed (0 while closed after
    /// a close): what the next break's length grows from.
    package var consecutiveOpenings: Int { openings }

    /// Whether `ticket` is a probe of the current half-open period, so
    /// that its result still decides the breaker.
    package func isProbe(_ ticket: Ticket) -> Bool {
        guard ticket.generation == generation, case .halfOpen = phase else { return false }
        return true
    }

    /// Another process sharing the breaker opened it until `until`, its
    /// `openings`-th opening since the breaker last closed. Only ever
    /// extends: an open breaker whose break ends at or after `until` stays
    /// as it is. A closed or half-open breaker opens (its window emptied,
    /// its probes' results ignored from then on). The change is returned,
    /// and reported once more by the next ``admit(at:)`` (so that the call
    /// that meets it reports it, as calls report changes made here) unless
    /// a change made here comes first.
    package mutating func adoptOpening(until: Timestamp, openings shared: Int, at now: Timestamp) -> CircuitBreakerTransition? {
        openings = max(openings, shared)
        if case .open(let current) = phase, current >= until { return nil }
        consecutive = 0
        window.reset()
        enter(.open(until: until))
        let transition = CircuitBreakerTransition.opened(until: until, breakDuration: until.duration(since: now), reason: .shared)
        adopted = transition
        return transition
    }

    /// Another process sharing the breaker closed it (its probes all
    /// succeeded): close with an empty window, the break back to its first
    /// length. Reported by the next ``admit(at:)`` like an adopted opening.
    package mutating func adoptClosing() -> CircuitBreakerTransition? {
        if case .closed = phase { return nil }
        openings = 0
        consecutive = 0
        window.reset()
        enter(.closed)
        adopted = .closed
        return .closed
    }

    /// Starts a new half-open period with no probe admitted yet, whatever
    /// the state: the probes of an earlier period no longer decide. Used
    /// when the right to probe is granted from outside (a fleet-wide
    /// permit); ``admit(at:)`` then admits the probe.
    package mutating func beginProbing() -> CircuitBreakerTransition? {
        let wasHalfOpen: Bool
        if case .halfOpen = phase { wasHalfOpen = true } else { wasHalfOpen = false }
        enter(.halfOpen(admitted: 0, succeeded: 0))
        return wasHalfOpen ? nil : .halfOpened
    }

    /// The call admitted with `ticket` will not report a result (it was
    /// cancelled, or never started): a half-open breaker lets another
    /// probe through in its place.
    public mutating func release(_ ticket: Ticket) {
        guard ticket.generation == generation, case .halfOpen(let admitted, let succeeded) = phase else { return }
        phase = .halfOpen(admitted: max(admitted - 1, succeeded), succeeded: succeeded)
    }

    private mutating func open(at now: Timestamp, reason: CircuitBreakerTransition.OpenReason) -> CircuitBreakerTransition {
        openings += 1
        consecutive = 0
        window.reset()
        let length = configuration.breakDuration(opening: openings)
        let until = now + length
        enter(.open(until: until))
        return .opened(until: until, breakDuration: length, reason: reason)
    }

    private mutating func enter(_ next: Phase) {
        phase = next
        generation &+= 1
        adopted = nil
    }

    /// The sliding window: a ring of the last calls, or ten time buckets.
    struct Window: Sendable {
        private let sampling: CircuitBreakerConfiguration.Sampling
        /// Count window: 1 for a failure, 0 for a success, in a ring.
        /// Time window: failures and calls per bucket, interleaved.
        private var slots: [Int]
        private var next = 0
        /// Time window: the bucket number of the newest bucket.
        private var newestBucket: Int64 = .min
        private(set) var calls = 0
        private(set) var failures = 0

        static let bucketCount = 10

        init(_ sampling: CircuitBreakerConfiguration.Sampling) {
            self.sampling = sampling
            switch sampling {
            case .count(let size): slots = []; slots.reserveCapacity(max(size, 1))
            case .time: slots = [Int](repeating: 0, count: Self.bucketCount * 2)
            }
        }

        mutating func reset() {
            calls = 0
            failures = 0
            next = 0
            newestBucket = .min
            switch sampling {
            case .count: slots.removeAll(keepingCapacity: true)
            case .time: for index in slots.indices { slots[index] = 0 }
            }
        }

        mutating func add(failure: Bool, at now: Timestamp) {
            let value = failure ? 1 : 0
            switch sampling {
            case .count(let size):
                let size = max(size, 1)
                if slots.count < size {
                    slots.append(value)
                    calls += 1
                } else {
                    failures -= slots[next]
                    slots[next] = value
                }
                next = (next + 1) % size
                failures += value
            case .time(let length):
                let width = max(length.nanosecondsSaturated / Int64(Self.bucketCount), 1)
                let bucket = now.nanosecondsSince1970 / width
                if newestBucket == .min || bucket - newestBucket >= Int64(Self.bucketCount) {
                    reset()
                } else if bucket > newestBucket {
                    // Empty the buckets that fell out of the window.
                    for passed in (newestBucket + 1)...bucket {
                        let slot = Int(passed.modulo(Int64(Self.bucketCount))) * 2
                        failures -= slots[slot]
                        calls -= slots[slot + 1]
                        slots[slot] = 0
                        slots[slot + 1] = 0
                    }
                }
                // A call recorded at an earlier instant than the newest
                // bucket (clocks of different requests) lands in the newest.
                newestBucket = max(newestBucket, bucket)
                let slot = Int(newestBucket.modulo(Int64(Self.bucketCount))) * 2
                slots[slot] += value
                slots[slot + 1] += 1
                failures += value
                calls += 1
            }
        }
    }
}

extension Int64 {
    fileprivate func modulo(_ divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}

/// The live breaker shared by every request under a policy: one
/// ``CircuitBreakerStateMachine`` behind a lock.
///
/// With a ``RetryStateStore`` the breaker goes through the store, under
/// ``key``; the in-memory store keeps it in this process.
public final class CircuitBreaker: Sendable {
    public let configuration: CircuitBreakerConfiguration
    public let key: String?
    public let store: (any RetryStateStore)?
    private let machine: LockedValue<CircuitBreakerStateMachine>

    public init(configuration: CircuitBreakerConfiguration) {
        self.configuration = configuration
        key = nil
        store = nil
        machine = LockedValue(CircuitBreakerStateMachine(configuration: configuration))
    }

    /// A breaker shared through `store` under `key`.
    public init(configuration: CircuitBreakerConfiguration, store: any RetryStateStore, key: String) {
        self.configuration = configuration
        self.key = key
        self.store = store
        machine = LockedValue(CircuitBreakerStateMachine(configuration: configuration))
    }

    public var state: CircuitBreakerStateMachine.State { machine.withLock { $0.state } }

    public func admit(at now: Timestamp) -> (CircuitBreakerStateMachine.Admission, CircuitBreakerTransition?) {
        if let store { return store.admit(at: now, through: self) }
        return admitLocally(at: now)
    }

    public func record(failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp)
        -> CircuitBreakerTransition?
    {
        if let store { return store.record(failure: failure, ticket: ticket, at: now, in: self) }
        return recordLocally(failure: failure, ticket: ticket, at: now)
    }

    /// The call admitted with `ticket` will report no result.
    public func release(_ ticket: CircuitBreakerStateMachine.Ticket) {
        if let store { return store.release(ticket, in: self) }
        releaseLocally(ticket)
    }

    /// A release in this process's state only.
    package func releaseLocally(_ ticket: CircuitBreakerStateMachine.Ticket) {
        machine.withLock { $0.release(ticket) }
    }

    /// Admission decided in this process when that needs nothing from
    /// elsewhere: closed, or open with the break still running. `nil` once
    /// the break is over (open or half-open), when a shared breaker must
    /// first claim a probe permit. One lock, no state read twice.
    package func admitWithoutProbe(at now: Timestamp) -> (CircuitBreakerStateMachine.Admission, CircuitBreakerTransition?)? {
        machine.withLock { machine in
            switch machine.state {
            case .closed: return machine.admit(at: now)
            case .open(let until) where now < until: return machine.admit(at: now)
            case .open, .halfOpen: return nil
            }
        }
    }

    /// A result recorded in this process's state only, and whether the
    /// call was a probe of the current half-open period (read under the
    /// same lock).
    package func recordLocallyNotingProbe(failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp)
        -> (transition: CircuitBreakerTransition?, wasProbe: Bool)
    {
        machine.withLock { machine in
            let wasProbe = machine.isProbe(ticket)
            return (machine.record(failure: failure, ticket: ticket, at: now), wasProbe)
        }
    }

    /// Times opened since the breaker last closed.
    package var consecutiveOpenings: Int { machine.withLock { $0.consecutiveOpenings } }

    /// Whether `ticket` is a probe of the current half-open period.
    package func isProbe(_ ticket: CircuitBreakerStateMachine.Ticket) -> Bool { machine.withLock { $0.isProbe(ticket) } }

    /// Applies an opening from elsewhere (see
    /// ``CircuitBreakerStateMachine/adoptOpening(until:openings:at:)``).
    package func adoptOpening(until: Timestamp, openings: Int, at now: Timestamp) -> CircuitBreakerTransition? {
        machine.withLock { $0.adoptOpening(until: until, openings: openings, at: now) }
    }

    /// Applies a closing from elsewhere.
    package func adoptClosing() -> CircuitBreakerTransition? { machine.withLock { $0.adoptClosing() } }

    /// Admits a probe whose right to go through was granted from outside
    /// (a fleet-wide permit): a breaker that is not half-open, or with
    /// `newPeriod` one whose probes belong to an earlier period, starts a
    /// new half-open period first; then the probe is admitted in it.
    package func admitProbe(at now: Timestamp, newPeriod: Bool) -> (CircuitBreakerStateMachine.Admission, CircuitBreakerTransition?) {
        machine.withLock { machine in
            var started: CircuitBreakerTransition?
            if newPeriod || machine.state != .halfOpen { started = machine.beginProbing() }
            let (admission, transition) = machine.admit(at: now)
            return (admission, transition ?? started)
        }
    }

    /// Admission against this process's state only.
    package func admitLocally(at now: Timestamp) -> (CircuitBreakerStateMachine.Admission, CircuitBreakerTransition?) {
        machine.withLock { $0.admit(at: now) }
    }

    /// A result recorded in this process's state only.
    package func recordLocally(failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp)
        -> CircuitBreakerTransition?
    {
        machine.withLock { $0.record(failure: failure, ticket: ticket, at: now) }
    }
}

extension RetryStateStore {
    /// The default: the breaker's state lives in this process.
    public func admit(at now: Timestamp, through breaker: CircuitBreaker)
        -> (CircuitBreakerStateMachine.Admission, CircuitBreakerTransition?)
    {
        breaker.admitLocally(at: now)
    }

    /// The default: the breaker's state lives in this process.
    public func record(
        failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp, in breaker: CircuitBreaker
    ) -> CircuitBreakerTransition? {
        breaker.recordLocally(failure: failure, ticket: ticket, at: now)
    }

    /// The default: the breaker's state lives in this process.
    public func release(_ ticket: CircuitBreakerStateMachine.Ticket, in breaker: CircuitBreaker) {
        breaker.releaseLocally(ticket)
    }
}

extension CompiledPolicy {
    /// Whether the policy's breaker counts `outcome` (sent with `method`)
    /// as a failure. A cancelled attempt is never one.
    public func breakerCountsFailure(_ outcome: AttemptOutcome, method: HTTPMethod) -> Bool {
        guard let failures = breaker?.configuration.failures ?? policy.breaker?.failures else { return false }
        return breakerCountsFailure(outcome, method: method, failures: failures)
    }

    /// Whether `failures` counts `outcome` (sent with `method`) as a
    /// failure, resolved against this policy's rules.
    public func breakerCountsFailure(
        _ outcome: AttemptOutcome, method: HTTPMethod, failures: CircuitBreakerConfiguration.Failures
    ) -> Bool {
        if case .transport(.cancelled) = outcome { return false }
        let resolution = resolution(for: outcome, method: method)
        if failures.isRetried { return resolution.action == .retry }
        if let index = resolution.ruleIndex, failures.rules.contains(index) { return true }
        if let kind = resolution.errorKind, failures.errors.contains(kind) { return true }
        if case .response(let status, _) = outcome, failures.statuses.contains(where: { $0.codes.contains(status) }) {
            return true
        }
        return false
    }
}
