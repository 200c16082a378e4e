import RetryPolicyCore

/// Runs operations under a policy: sends, judges, waits, retries or stops.
///
/// One executor serves every request under a policy; it is a value holding
/// the shared `RetryDecider` (so budget and cooldown are shared too), the
/// clock that measures and sleeps, and the optional hooks. It keeps no
/// per-request state, so it is `Sendable` and cheap to copy.
///
/// ```swift
/// let executor = RetryExecutor(decider: RetryDecider(policy: policy))
/// let response = try await executor.run(RetryRequest(method: .get)) { _ in
///     try await client.send(request)          // returns a RetryableResponse
/// }
/// ```
///
/// Time comes from `clock` only: waits, per-attempt timeouts and the total
/// deadline are all measured on it, which is why tests can drive an
/// executor with `ManualClock` (`RetryPolicyTesting`) and never sleep for real.
public struct RetryExecutor<C: Clock>: Sendable where C.Duration == Duration {
    public var decider: RetryDecider {
        @inlinable get { setup.fields.decider }
        set { update { $0.decider = newValue } }
    }
    public var clock: C {
        @inlinable get { setup.fields.clock }
        set { update { $0.clock = newValue } }
    }
    /// Where the clock's timeline sits in wall-clock time. An executor made
    /// without `wallClockNow` whose requests never need a wall time (no
    /// hook, a policy that needs no time) has no anchor: reading this
    /// then anchors at the system's real-time clock now, and keeps nothing.
    public var wallClock: WallClockAnchor<C.Instant> {
        get { setup.fields.wallClock ?? WallClockAnchor(instant: clock.now, timestamp: .systemNow()) }
        set { update { $0.wallClock = newValue } }
    }

    // A request's times are moments: durations since the wall-clock
    // anchor's instant, not the clock's own instants. An instant of a clock
    // from another module (`ContinuousClock`'s) has a size known only at
    // run time, so every one an async function holds or copies is an
    // allocation from the task and calls through value witnesses; a
    // duration is two integers. Only a timed request has moments, and an
    // executor anchors whenever one of its requests can be timed (a hook,
    // or a policy that needs time), so the fallbacks below for an executor
    // without an anchor are never reached.

    /// The clock's reading now, as a moment. Out of line and synchronous,
    /// so that the instants it reads stay on the thread's stack.
    @inlinable @inline(never)
    func moment() -> Duration {
        guard let anchor = setup.fields.wallClock else { return .zero }
        return anchor.instant.duration(to: setup.fields.clock.now)
    }

    /// The clock's instant at `moment`, to sleep until.
    @inlinable @inline(never)
    func instant(at moment: Duration) -> C.Instant {
        (setup.fields.wallClock?.instant ?? setup.fields.clock.now).advanced(by: moment)
    }

    /// The wall-clock time at `moment`.
    @inlinable
    func wallTime(at moment: Duration) -> Timestamp {
        (setup.anchorTimestamp ?? .systemNow()) + moment
    }
    /// Translates thrown errors into outcomes.
    public var classifier: ErrorClassifier {
        @inlinable get { setup.fields.classifier }
        set { update { $0.classifier = newValue } }
    }
    /// Called before a retry the policy marked `refresh_credentials`.
    public var refreshCredentials: CredentialRefresher? {
        @inlinable get { setup.fields.refreshCredentials }
        set { update { $0.refreshCredentials = newValue } }
    }
    /// Where requests are reported: observer, telemetry, tracing and
    /// shadow policy.
    public var hooks: RetryHooks {
        @inlinable get { setup.fields.hooks }
        set { update { $0.hooks = newValue } }
    }
    /// Receives every event of every request (`hooks.observer`).
    public var observer: RetryObserver? {
        @inlinable get { setup.fields.hooks.observer }
        set { update { $0.hooks.observer = newValue } }
    }
    /// Metrics and logs; `nil` costs nothing (`hooks.telemetry`).
    public var telemetry: RetryTelemetry? {
        @inlinable get { setup.fields.hooks.telemetry }
        set { update { $0.hooks.telemetry = newValue } }
    }
    /// Spans for every request and attempt; `nil` costs nothing
    /// (`hooks.tracing`).
    public var tracing: RetryTracing? {
        @inlinable get { setup.fields.hooks.tracing }
        set { update { $0.hooks.tracing = newValue } }
    }
    /// A candidate policy shown every request's attempts after the request,
    /// to report where it would have decided differently; it never acts.
    /// `nil` costs nothing (`hooks.shadow`).
    public var shadow: ShadowPolicy? {
        @inlinable get { setup.fields.hooks.shadow }
        set { update { $0.hooks.shadow = newValue } }
    }

    /// - Parameters:
    ///   - decider: the policy's shared decider.
    ///   - clock: measures attempts and deadlines and sleeps.
    ///   - wallClockNow: the wall-clock time corresponding to `clock.now`,
    ///     which is then read here. By default the system's real-time
    ///     clock, read with `clock.now` only when a request may need a wall
    ///     time (a hook to report to, or a policy with a deadline, budget,
    ///     cooldown, breaker, hedging or date-valued `Retry-After`): an
    ///     executor that needs no time reads no clock when it is made.
    ///   - classifier: translates thrown errors into outcomes.
    ///   - refreshCredentials: called before a retry the policy marked
    ///     `refresh_credentials`.
    ///   - observer: receives every event of every request.
    ///   - telemetry: metrics and logs; `nil` costs nothing.
    ///   - tracing: spans for every request and attempt; by default the
    ///     tracer bootstrapped in `InstrumentationSystem`, and `nil`
    ///     (costing nothing) when none is.
    public init(
        decider: RetryDecider,
        clock: C,
        wallClockNow: Timestamp? = nil,
        classifier: ErrorClassifier = .standard,
        refreshCredentials: CredentialRefresher? = nil,
        observer: RetryObserver? = nil,
        telemetry: RetryTelemetry? = nil,
        tracing: RetryTracing? = .bootstrapped
    ) {
        self.init(
            decider: decider, clock: clock, wallClockNow: wallClockNow, classifier: classifier,
            refreshCredentials: refreshCredentials,
            hooks: RetryHooks(observer: observer, telemetry: telemetry, tracing: tracing))
    }

    /// An executor reporting to `hooks`.
    public init(
        decider: RetryDecider,
        clock: C,
        wallClockNow: Timestamp? = nil,
        classifier: ErrorClassifier = .standard,
        refreshCredentials: CredentialRefresher? = nil,
        hooks: RetryHooks
    ) {
        setup = Setup(
            Setup.Fields(
                decider: decider, clock: clock,
                wallClock: wallClockNow != nil || !hooks.isEmpty || decider.mayNeedTime
                    ? WallClockAnchor(instant: clock.now, timestamp: wallClockNow ?? .systemNow()) : nil,
                classifier: classifier, refreshCredentials: refreshCredentials, hooks: hooks))
        firstTry = setup.firstTry
    }

    public var policy: Policy { decider.policy }

    /// Everything above, behind one reference: every request's async
    /// frames hold the executor, and a copy of it is then one retain
    /// instead of one per closure, logger and decider it carries.
    @usableFromInline
    var setup: Setup

    /// What a first try's success needs, in the executor value itself, so
    /// that it is read where the caller holds the executor: following the
    /// reference to `setup` (a generic class, whose fields are found
    /// through its metadata) made a first try in one task 1.20x seed 003's
    /// `retry` rather than 1.00x (docs/performance.md).
    @usableFromInline
    var firstTry: FirstTryShortcut

    private mutating func update(_ change: (inout Setup.Fields) -> Void) {
        var fields = setup.fields
        change(&fields)
        // A hook or a policy that needs time, added to an executor that
        // had no use for a wall time: anchor it now.
        if fields.wallClock == nil, !fields.hooks.isEmpty || fields.decider.mayNeedTime {
            fields.wallClock = WallClockAnchor(instant: fields.clock.now, timestamp: .systemNow())
        }
        setup = Setup(fields)
        firstTry = setup.firstTry
    }

    /// Immutable: a change replaces it whole, so reading it needs neither a
    /// lock nor an exclusivity check.
    @usableFromInline
    final class Setup: Sendable {
        @usableFromInline
        struct Fields: Sendable {
            @usableFromInline var decider: RetryDecider
            @usableFromInline var clock: C
            @usableFromInline var wallClock: WallClockAnchor<C.Instant>?
            @usableFromInline var classifier: ErrorClassifier
            @usableFromInline var refreshCredentials: CredentialRefresher?
            @usableFromInline var hooks: RetryHooks
        }

        @usableFromInline let fields: Fields
        /// No hook: nothing to report, so a first try may take the fast
        /// path. Every report is guarded by this flag rather than by testing
        /// the optionals: reading `telemetry` copies it through its type's
        /// value witnesses, on every attempt.
        @usableFromInline let isUnobserved: Bool
        /// Requests get spans; guards every look-up of a request's trace.
        @usableFromInline let isTraced: Bool
        /// The anchor's wall-clock time, apart from its instant: reading
        /// it needs no value witness of the clock's instant type.
        @usableFromInline let anchorTimestamp: Timestamp?
        /// A shadow policy is shown every request.
        @usableFromInline let isShadowed: Bool
        /// An observer receives events.
        @usableFromInline let isObserved: Bool
        /// Unobserved, and every request without an endpoint may be sent
        /// at once (`RetryDecider.mayAlwaysStartAtOnce`), with the plain 2xx
        /// successes: what the executor value copies into `firstTry`.
        let firstTry: FirstTryShortcut
        /// What a first try's success needs no decider for.
        @usableFromInline let plainSuccesses: PlainSuccessStatuses

        init(_ fields: Fields) {
            self.fields = fields
            anchorTimestamp = fields.wallClock?.timestamp
            isTraced = fields.hooks.tracing != nil
            isShadowed = fields.hooks.shadow != nil
            isObserved = fields.hooks.observer != nil
            isUnobserved = fields.hooks.isEmpty
            plainSuccesses = PlainSuccessStatuses(fields.decider)
            firstTry = FirstTryShortcut(
                startsAtOnce: isUnobserved && fields.decider.mayAlwaysStartAtOnce, successes: plainSuccesses)
        }
    }
}

extension RetryExecutor where C == ContinuousClock {
    /// An executor on the continuous clock, the usual choice outside tests.
    public init(
        decider: RetryDecider,
        classifier: ErrorClassifier = .standard,
        refreshCredentials: CredentialRefresher? = nil,
        observer: RetryObserver? = nil,
        telemetry: RetryTelemetry? = nil,
        tracing: RetryTracing? = .bootstrapped
    ) {
        self.init(
            decider: decider, clock: ContinuousClock(), classifier: classifier,
            refreshCredentials: refreshCredentials, observer: observer, telemetry: telemetry, tracing: tracing)
    }
}
