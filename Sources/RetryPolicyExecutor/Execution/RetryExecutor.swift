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
/// executor with ``ManualClock`` and never sleep for real.
public struct RetryExecutor<C: Clock>: Sendable where C.Duration == Duration {
    public var decider: RetryDecider {
        @inlinable get { setup.fields.decider }
        set { update { $0.decider = newValue } }
    }
    public var clock: C {
        @inlinable get { setup.fields.clock }
        set { update { $0.clock = newValue } }
    }
    /// Where the clock's timeline sits in wall-clock time.
    public var wallClock: WallClockAnchor<C.Instant> {
        @inlinable get { setup.fields.wallClock }
        set { update { $0.wallClock = newValue } }
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
    /// Receives every event of every request.
    public var observer: RetryObserver? {
        @inlinable get { setup.fields.observer }
        set { update { $0.observer = newValue } }
    }
    /// Metrics and logs; `nil` costs nothing.
    public var telemetry: RetryTelemetry? {
        @inlinable get { setup.fields.telemetry }
        set { update { $0.telemetry = newValue } }
    }

    /// - Parameters:
    ///   - decider: the policy's shared decider.
    ///   - clock: measures attempts and deadlines and sleeps.
    ///   - wallClockNow: the wall-clock time corresponding to `clock.now`;
    ///     defaults to the system's real-time clock.
    ///   - classifier: translates thrown errors into outcomes.
    ///   - refreshCredentials: called before a retry the policy marked
    ///     `refresh_credentials`.
    ///   - observer: receives every event of every request.
    ///   - telemetry: metrics and logs; `nil` costs nothing.
    public init(
        decider: RetryDecider,
        clock: C,
        wallClockNow: Timestamp = .systemNow(),
        classifier: ErrorClassifier = .standard,
        refreshCredentials: CredentialRefresher? = nil,
        observer: RetryObserver? = nil,
        telemetry: RetryTelemetry? = nil
    ) {
        setup = Setup(
            Setup.Fields(
                decider: decider, clock: clock, wallClock: WallClockAnchor(instant: clock.now, timestamp: wallClockNow),
                classifier: classifier, refreshCredentials: refreshCredentials, observer: observer, telemetry: telemetry))
    }

    public var policy: Policy { decider.policy }

    /// Everything above, behind one reference: every request's async
    /// frames hold the executor, and a copy of it is then one retain
    /// instead of one per closure, logger and decider it carries.
    @usableFromInline
    var setup: Setup

    private mutating func update(_ change: (inout Setup.Fields) -> Void) {
        var fields = setup.fields
        change(&fields)
        setup = Setup(fields)
    }

    /// Immutable: a change replaces it whole, so reading it needs neither a
    /// lock nor an exclusivity check.
    @usableFromInline
    final class Setup: Sendable {
        @usableFromInline
        struct Fields: Sendable {
            @usableFromInline var decider: RetryDecider
            @usableFromInline var clock: C
            @usableFromInline var wallClock: WallClockAnchor<C.Instant>
            @usableFromInline var classifier: ErrorClassifier
            @usableFromInline var refreshCredentials: CredentialRefresher?
            @usableFromInline var observer: RetryObserver?
            @usableFromInline var telemetry: RetryTelemetry?
        }

        @usableFromInline let fields: Fields
        /// No observer and no telemetry: nothing to report, so a first try
        /// may take the fast path. Every report is guarded by this flag
        /// rather than by testing the optionals: reading `telemetry` copies
        /// it through its type's value witnesses, on every attempt.
        @usableFromInline let isUnobserved: Bool

        init(_ fields: Fields) {
            self.fields = fields
            isUnobserved = fields.observer == nil && fields.telemetry == nil
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
        telemetry: RetryTelemetry? = nil
    ) {
        self.init(
            decider: decider, clock: ContinuousClock(), classifier: classifier,
            refreshCredentials: refreshCredentials, observer: observer, telemetry: telemetry)
    }
}

// MARK: - Running

extension RetryExecutor {
    /// Runs an operation that returns an HTTP response; the policy judges
    /// each response by its status and headers.
    @inlinable
    public func run<Response: RetryableResponse>(
        _ request: RetryRequest = RetryRequest(),
        operation: @Sendable (AttemptContext) async throws -> Response
    ) async throws(RetryFailure) -> Response {
        var generator = SystemRandomNumberGenerator()
        let decider = self.decider
        return try await run(request, using: &generator, judge: { decider.outcome(for: $0) }, operation: operation)
    }

    /// Runs an operation that returns an HTTP response, drawing jitter from
    /// `generator` (a seeded `SplitMix64` makes runs reproducible).
    @inlinable
    public func run<Response: RetryableResponse, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        operation: @Sendable (AttemptContext) async throws -> Response
    ) async throws(RetryFailure) -> Response {
        let decider = self.decider
        return try await run(request, using: &generator, judge: { decider.outcome(for: $0) }, operation: operation)
    }

    /// Runs an operation that reports failure only by throwing: a returned
    /// value is a success, a thrown error is judged through ``classifier``.
    @inlinable
    public func run<Value: Sendable>(
        _ request: RetryRequest = RetryRequest(),
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        var generator = SystemRandomNumberGenerator()
        return try await run(request, using: &generator, judge: { _ in .status(200) }, operation: operation)
    }

    /// The general form: `judge` says what a returned value means (a 2xx
    /// is a success unless a rule says otherwise), thrown errors go through
    /// ``classifier``.
    ///
    /// A first-try success costs one clock reading, a cancellation check,
    /// a rule lookup and no heap allocation of its own, not even in a task
    /// of its own (when neither a per-attempt timeout nor a total deadline
    /// is set, since enforcing one needs a timer task, and no observer or
    /// telemetry is attached). The history is built only once something
    /// fails.
    @inlinable
    public func run<Value: Sendable, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        judge: (Value) -> AttemptOutcome,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        // The common case, a first try that succeeds with no timer, hook or
        // cooldown involved, runs here; everything else continues in
        // `retryLoop`, whose larger frame is only allocated when it is
        // needed. The checks before and after the attempt are synchronous
        // calls, so the policy and the timeout budget live on the thread's
        // stack and not in this function's async frame: on a new task the
        // whole first try fits the task's first allocation slab. A plain
        // success is settled without a second clock reading.
        let setup = self.setup
        let start = setup.fields.clock.now
        guard setup.isUnobserved, !Task.isCancelled,
            setup.fields.decider.mayStartAtOnce(request, now: { setup.fields.wallClock.timestamp(at: start) })
        else {
            return try await retryLoop(request, start: start, first: nil, using: &generator, judge: judge, operation: operation)
        }
        let result: AttemptResult<Value>
        do {
            result = .value(try await operation(AttemptContext(attempt: 1, credentialRefreshes: 0)))
        } catch {
            result = .failure(error)
        }
        if case .value(let value) = result,
            setup.fields.decider.settlePlainSuccess(ofFirstAttempt: judge(value), method: request.method)
        {
            return value
        }
        return try await retryLoop(
            request, start: start, first: FirstAttempt(result: result, start: start, end: setup.fields.clock.now),
            using: &generator, judge: judge, operation: operation)
    }

    /// An attempt already made before the loop took over.
    @usableFromInline
    struct FirstAttempt<Value: Sendable>: Sendable {
        @usableFromInline var result: AttemptResult<Value>
        @usableFromInline var start: C.Instant
        @usableFromInline var end: C.Instant

        @inlinable
        init(result: AttemptResult<Value>, start: C.Instant, end: C.Instant) {
            self.result = result
            self.start = start
            self.end = end
        }
    }

    /// The full request: a ``RequestStateMachine`` decides every step, and
    /// this loop only does what it asks: runs attempts (with a timer when
    /// there is a time limit), sleeps on `clock`, refreshes credentials,
    /// watches for cancellation and reports events.
    ///
    /// This function's async frame is allocated once per request that gets
    /// here, from the task's allocator, so it holds only what crosses a
    /// wait: the machine, the last value, the instants and the action.
    /// Every step that reads the clock's instants as request times, judges
    /// a result, builds a record or a failure happens in a synchronous
    /// out-of-line function, on the thread's stack.
    @inlinable
    func retryLoop<Value: Sendable, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        start: C.Instant,
        first: FirstAttempt<Value>?,
        using generator: inout G,
        judge: (Value) -> AttemptOutcome,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        var machine = RequestStateMachine(decider: decider, request: request, concurrentAttempts: first == nil)
        if machine.isHedged {
            return try await hedgedLoop(
                &machine, request, start: start, using: &generator, judge: judge, operation: operation)
        }
        // The value of the last attempt, for a failure to carry.
        var lastValue: Value?
        // The instant of the machine's last event: waits run from there.
        var now = start
        var action = try begin(
            &machine, first: first, start: start, now: &now, lastValue: &lastValue, request: request,
            using: &generator, judge: judge)

        while true {
            switch action {
            case .startAttempt(let number, let limit):
                lastValue = nil
                // No attempt starts after cancellation.
                if Task.isCancelled { throw cancellation(&machine, request: request, start: start) }
                if observer != nil { reportAttemptStarted(number: number, at: start.duration(to: now)) }
                let context = AttemptContext(attempt: number, credentialRefreshes: machine.credentialRefreshes)
                let result: AttemptResult<Value>
                if let limit {
                    result = await perform(operation, context: context, limit: limit, startedAt: now)
                } else {
                    do { result = .value(try await operation(context)) } catch { result = .failure(error) }
                }
                now = clock.now
                action = try attemptFinished(
                    result, machine: &machine, end: now, start: start, lastValue: &lastValue, request: request,
                    using: &generator, judge: judge)
            case .wait(let delay, let reason):
                // A failure after a cooldown is not decided on a response.
                if reason == .cooldown { lastValue = nil }
                if !setup.isUnobserved { reportWaiting(delay, reason: reason, request: request) }
                do {
                    try await clock.sleep(until: now.advanced(by: delay), tolerance: nil)
                } catch {
                    throw cancellation(&machine, request: request, start: start)
                }
                now = clock.now
                action = waitFinished(&machine, at: now, start: start, request: request)
            case .refreshCredentials:
                var failure: (any Error)?
                if let refresh = self.refreshCredentials {
                    if observer != nil { reportRefreshingCredentials() }
                    do {
                        try await refresh()
                    } catch {
                        if Task.isCancelled { throw cancellation(&machine, request: request, start: start) }
                        failure = error
                    }
                }
                now = clock.now
                action = credentialRefreshFinished(&machine, at: now, start: start, failure: failure, request: request)
            case .succeed:
                if let value = lastValue {
                    if !setup.isUnobserved {
                        reportSuccess(attempts: machine.attempt, request: request, elapsed: start.duration(to: now))
                    }
                    return value
                }
                preconditionFailure("the machine succeeds only on an attempt with a value")
            case .fail(let failure):
                throw fail(failure, lastValue: lastValue, request: request, start: start)
            case .hedge:
                preconditionFailure("only a hedged request's machine asks to hedge")
            }
        }
    }

    /// What a hedged request waits for: an attempt's result, its timer, or
    /// the caller's cancellation.
    @usableFromInline
    enum HedgeEvent<Value: Sendable>: Sendable {
        case finished(number: Int, result: AttemptResult<Value>)
        /// The timer of generation `generation` fired.
        case timer(generation: Int)
        case cancelled
    }

    /// A hedged request: the machine starts copies of the request while
    /// earlier ones are still in flight. Each copy runs in a child task of
    /// one task group (with its own time limit) and reports its result on
    /// a stream; the hedge timer is one task, cancelled whenever the
    /// machine asks for another. The machine decides on every result and
    /// every timer, and when it settles the request the group cancels
    /// whatever is still running, so no copy outlives the request.
    @inlinable
    func hedgedLoop<Value: Sendable, G: RandomNumberGenerator>(
        _ machine: inout RequestStateMachine,
        _ request: RetryRequest,
        start: C.Instant,
        using generator: inout G,
        judge: (Value) -> AttemptOutcome,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        if Task.isCancelled { throw cancellation(&machine, request: request, start: start) }
        var action = machine.start(at: time(start, since: start))
        if !setup.isUnobserved, let transition = machine.breakerTransition { reportBreaker(transition, request: request) }
        let clock = self.clock
        let executor = self
        let (events, continuation) = AsyncStream<HedgeEvent<Value>>.makeStream()
        var timer: Task<Void, Never>?
        defer {
            timer?.cancel()
            continuation.finish()
        }
        let outcome: Result<Value, RetryFailure> = await withoutActuallyEscaping(operation) { escapable in
            await withTaskCancellationHandler {
                await withTaskGroup(of: Void.self) { group in
                    var iterator = events.makeAsyncIterator()
                    var now = start
                    var generation = 0
                    var reported = 0
                    var lastValue: Value?
                    while true {
                        switch action {
                        case .hedge(let attempt, let next):
                            if let attempt {
                                if Task.isCancelled {
                                    group.cancelAll()
                                    return .failure(executor.cancellation(&machine, request: request, start: start))
                                }
                                if executor.observer != nil {
                                    executor.reportAttemptStarted(number: attempt.number, at: start.duration(to: now))
                                }
                                let context = AttemptContext(attempt: attempt.number, credentialRefreshes: 0)
                                let startedAt = now
                                group.addTask {
                                    let result: AttemptResult<Value>
                                    if let limit = attempt.timeLimit {
                                        result = await executor.perform(
                                            escapable, context: context, limit: limit, startedAt: startedAt)
                                    } else {
                                        do { result = .value(try await escapable(context)) } catch { result = .failure(error) }
                                    }
                                    continuation.yield(.finished(number: attempt.number, result: result))
                                }
                            }
                            // Each action replaces the timer; one that fired
                            // before it was replaced is ignored by its
                            // generation.
                            timer?.cancel()
                            timer = nil
                            generation += 1
                            if let next {
                                let deadline = now.advanced(by: next)
                                let current = generation
                                timer = Task {
                                    do {
                                        try await clock.sleep(until: deadline, tolerance: nil)
                                        continuation.yield(.timer(generation: current))
                                    } catch {}
                                }
                            }
                            if executor.observer != nil { executor.observer?(.nextHedge(in: next)) }
                        case .wait(let delay, let reason):
                            // A cooldown before the first copy.
                            if !executor.setup.isUnobserved {
                                executor.reportWaiting(delay, reason: reason, request: request)
                            }
                            do {
                                try await clock.sleep(until: now.advanced(by: delay), tolerance: nil)
                            } catch {
                                return .failure(executor.cancellation(&machine, request: request, start: start))
                            }
                            now = clock.now
                            action = executor.waitFinished(&machine, at: now, start: start, request: request)
                            continue
                        case .succeed:
                            group.cancelAll()
                            executor.reportRecords(of: machine, from: &reported, request: request)
                            guard let value = lastValue else {
                                preconditionFailure("the machine succeeds only on an attempt with a value")
                            }
                            if !executor.setup.isUnobserved {
                                executor.reportSuccess(
                                    attempts: machine.attempt, request: request, elapsed: start.duration(to: now))
                            }
                            return .success(value)
                        case .fail(let failure):
                            group.cancelAll()
                            executor.reportRecords(of: machine, from: &reported, request: request)
                            return .failure(executor.fail(failure, lastValue: lastValue, request: request, start: start))
                        case .startAttempt, .refreshCredentials:
                            preconditionFailure("a hedged request's machine starts copies with hedge")
                        }

                        // The next event that counts.
                        var event: HedgeEvent<Value>?
                        while event == nil {
                            // The stream is finished only when the request
                            // ends, but its iterator also returns nil when
                            // the task is cancelled while it waits (before
                            // `.cancelled` is read): both are cancellation.
                            guard let next = await iterator.next() else {
                                group.cancelAll()
                                return .failure(executor.cancellation(&machine, request: request, start: start))
                            }
                            if case .timer(let fired) = next, fired != generation { continue }
                            event = next
                        }
                        now = clock.now
                        switch event! {
                        case .cancelled:
                            group.cancelAll()
                            return .failure(executor.cancellation(&machine, request: request, start: start))
                        case .timer:
                            timer = nil
                            action = machine.hedgeDelayElapsed(at: executor.time(now, since: start))
                        case .finished(let number, let result):
                            if case .value = result {} else if Task.isCancelled {
                                group.cancelAll()
                                return .failure(executor.cancellation(&machine, request: request, start: start))
                            }
                            let time = executor.time(now, since: start)
                            switch result {
                            case .value(let returned):
                                lastValue = returned
                                action = machine.attemptFinished(
                                    number, judge(returned), at: time, producedValue: true, using: &generator)
                            case .failure(let error):
                                lastValue = nil
                                action = machine.attemptFinished(
                                    number, executor.classifier.outcome(for: error), at: time, producedValue: false,
                                    thrown: error, using: &generator)
                            case .timedOut:
                                lastValue = nil
                                action = machine.attemptFinished(
                                    number, .transport(.timeout), at: time, producedValue: false, using: &generator)
                            }
                            if case .hedge = action { executor.reportRecords(of: machine, from: &reported, request: request) }
                        }
                        if !executor.setup.isUnobserved, let transition = machine.breakerTransition {
                            executor.reportBreaker(transition, request: request)
                        }
                    }
                }
            } onCancel: {
                continuation.yield(.cancelled)
            }
        }
        return try outcome.get()
    }

    /// Reports the attempts the machine recorded since `reported`.
    @inlinable @inline(never)
    func reportRecords(of machine: RequestStateMachine, from reported: inout Int, request: RetryRequest) {
        defer { reported = machine.history.count }
        guard !setup.isUnobserved else { return }
        for record in machine.history[reported...] {
            observer?(.attemptFinished(record))
            telemetry?.attemptFinished(record, policy: decider.policy.name, endpoint: request.endpoint)
        }
    }
}

// MARK: - Pieces of the loop

extension RetryExecutor {
    @usableFromInline
    enum AttemptResult<Value: Sendable>: Sendable {
        case value(Value)
        case failure(any Error)
        case timedOut
    }

    /// Runs one attempt with a time limit: races it against a timer on
    /// `clock` and cancels whichever loses. (Without a limit the loop calls
    /// the operation itself.)
    @inlinable @inline(never)
    func perform<Value: Sendable>(
        _ operation: @Sendable (AttemptContext) async throws -> Value,
        context: AttemptContext,
        limit: Duration,
        startedAt: C.Instant
    ) async -> AttemptResult<Value> {
        let deadline = startedAt.advanced(by: limit)
        let clock = self.clock
        return await withoutActuallyEscaping(operation) { escapable in
            await withTaskGroup(of: (isTimer: Bool, result: AttemptResult<Value>).self) { group in
                group.addTask {
                    do { return (false, .value(try await escapable(context))) } catch { return (false, .failure(error)) }
                }
                group.addTask {
                    do {
                        try await clock.sleep(until: deadline, tolerance: nil)
                        return (true, .timedOut)
                    } catch {
                        return (true, .failure(error))
                    }
                }
                var outcome: AttemptResult<Value> = .timedOut
                while let next = await group.next() {
                    // A timer that was cancelled is not a result: only the
                    // operation's answer or the timer firing counts.
                    if next.isTimer, case .failure = next.result { continue }
                    outcome = next.result
                    break
                }
                group.cancelAll()
                return outcome
            }
        }
    }

    /// The wall-clock and request-relative time of `instant`.
    @inlinable
    func time(_ instant: C.Instant, since start: C.Instant) -> RequestTime {
        RequestTime(elapsed: start.duration(to: instant), wall: wallClock.timestamp(at: instant))
    }

    /// Starts the machine: with the first attempt `run` already made, or
    /// with admission when there is none (and nothing at all when the
    /// caller already cancelled).
    @inlinable @inline(never)
    func begin<Value: Sendable, G: RandomNumberGenerator>(
        _ machine: inout RequestStateMachine,
        first: FirstAttempt<Value>?,
        start: C.Instant,
        now: inout C.Instant,
        lastValue: inout Value?,
        request: RetryRequest,
        using generator: inout G,
        judge: (Value) -> AttemptOutcome
    ) throws(RetryFailure) -> RequestStateMachine.Action {
        guard let first else {
            // No attempt starts after cancellation.
            if Task.isCancelled { throw cancellation(&machine, request: request, start: start) }
            let action = machine.start(at: time(start, since: start))
            if !setup.isUnobserved, let transition = machine.breakerTransition {
                reportBreaker(transition, request: request)
            }
            return action
        }
        let started = machine.startAdmitted(at: time(start, since: start))
        guard case .startAttempt = started else { return started }
        now = first.end
        return try attemptFinished(
            first.result, machine: &machine, end: first.end, start: start, lastValue: &lastValue, request: request,
            using: &generator, judge: judge)
    }

    /// Judges an attempt's result, tells the machine, and reports the
    /// attempt to the observer and telemetry.
    ///
    /// A value that arrived is kept even if the caller cancelled just
    /// after: the work is done. A failure under cancellation is the
    /// cancellation, whatever the operation threw.
    @inlinable @inline(never)
    func attemptFinished<Value: Sendable, G: RandomNumberGenerator>(
        _ result: AttemptResult<Value>,
        machine: inout RequestStateMachine,
        end: C.Instant,
        start: C.Instant,
        lastValue: inout Value?,
        request: RetryRequest,
        using generator: inout G,
        judge: (Value) -> AttemptOutcome
    ) throws(RetryFailure) -> RequestStateMachine.Action {
        if case .value = result {} else if Task.isCancelled {
            throw cancellation(&machine, request: request, start: start)
        }
        let time = time(end, since: start)
        let action: RequestStateMachine.Action
        switch result {
        case .value(let returned):
            lastValue = returned
            action = machine.attemptFinished(judge(returned), at: time, producedValue: true, using: &generator)
        case .failure(let error):
            action = machine.attemptFinished(
                classifier.outcome(for: error), at: time, producedValue: false, thrown: error, using: &generator)
        case .timedOut:
            action = machine.attemptFinished(.transport(.timeout), at: time, producedValue: false, using: &generator)
        }
        if !setup.isUnobserved, let record = machine.history.last {
            observer?(.attemptFinished(record))
            telemetry?.attemptFinished(record, policy: decider.policy.name, endpoint: request.endpoint)
            if let transition = machine.breakerTransition { reportBreaker(transition, request: request) }
        }
        return action
    }

    /// Tells the machine a wait ended at `now`.
    @inlinable @inline(never)
    func waitFinished(
        _ machine: inout RequestStateMachine, at now: C.Instant, start: C.Instant, request: RetryRequest
    )
        -> RequestStateMachine.Action
    {
        let action = machine.waitFinished(at: time(now, since: start))
        if let transition = machine.breakerTransition { reportBreaker(transition, request: request) }
        return action
    }

    /// Tells the machine a credential refresh ended at `now`.
    @inlinable @inline(never)
    func credentialRefreshFinished(
        _ machine: inout RequestStateMachine, at now: C.Instant, start: C.Instant, failure: (any Error)?,
        request: RetryRequest
    ) -> RequestStateMachine.Action {
        let action = machine.credentialRefreshFinished(at: time(now, since: start), failure: failure)
        if let transition = machine.breakerTransition { reportBreaker(transition, request: request) }
        return action
    }

    /// The failure the machine decided, carrying the last value returned.
    @inlinable @inline(never)
    func fail<Value: Sendable>(_ failure: RetryFailure, lastValue: Value?, request: RetryRequest, start: C.Instant)
        -> RetryFailure
    {
        var failure = failure
        failure.lastResponse = lastValue
        return finish(failure, request, start)
    }

    @inlinable @inline(never)
    func reportWaiting(_ delay: Duration, reason: WaitReason, request: RetryRequest) {
        observer?(.waiting(delay, cause: reason))
        telemetry?.waited(delay, cause: reason, policy: decider.policy.name, endpoint: request.endpoint)
    }

    @inlinable @inline(never)
    func reportSuccess(attempts: Int, request: RetryRequest, elapsed: Duration) {
        guard !setup.isUnobserved else { return }
        observer?(.succeeded(attempts: attempts, elapsed: elapsed))
        telemetry?.requestSucceeded(
            attempts: attempts, elapsed: elapsed, policy: decider.policy.name, endpoint: request.endpoint)
    }

    // The two events the loop reports itself, built out of line: a
    // `RetryEvent` is as large as an attempt record.

    @inlinable @inline(never)
    func reportAttemptStarted(number: Int, at startedAt: Duration) {
        observer?(.attemptStarted(number: number, at: startedAt))
    }

    /// A change of the circuit breaker this request caused: an event, a
    /// log line and a metric.
    @inlinable @inline(never)
    func reportBreaker(_ transition: CircuitBreakerTransition, request: RetryRequest) {
        guard !setup.isUnobserved else { return }
        observer?(.circuitBreaker(transition))
        telemetry?.breakerChanged(transition, policy: decider.policy.name, endpoint: request.endpoint)
    }

    @inlinable @inline(never)
    func reportRefreshingCredentials() {
        observer?(.refreshingCredentials)
    }

    /// The failure for a request cancelled before, during or between
    /// attempts, reported like every other.
    @inlinable @inline(never)
    func cancellation(_ machine: inout RequestStateMachine, request: RetryRequest, start: C.Instant) -> RetryFailure {
        finish(machine.cancelled(at: time(clock.now, since: start)), request, start)
    }

    /// Reports the failure to the observer and telemetry, and returns it
    /// for throwing.
    @inlinable @inline(never)
    func finish(_ failure: RetryFailure, _ request: RetryRequest, _ start: C.Instant) -> RetryFailure {
        if !setup.isUnobserved {
            let elapsed = start.duration(to: clock.now)
            observer?(.failed(error: failure.error, reason: failure.reason, attempts: failure.attempts.count, elapsed: elapsed))
            telemetry?.requestFailed(failure, elapsed: elapsed, policy: decider.policy.name, endpoint: request.endpoint)
        }
        return failure
    }
}
