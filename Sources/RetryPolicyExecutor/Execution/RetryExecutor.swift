import RetryPolicyCore

/// Runs operations under a policy: sends, judges, waits, retries or stops.
///
/// One executor serves every request under a policy; it is a value holding
/// the shared ``RetryDecider`` (so budget and cooldown are shared too), the
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
    ///   - wallClockNow: the wall-clock time corresponding to `clock.now`;
    ///     defaults to the system's real-time clock.
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
        /// may take the fast path.
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
    /// `generator` (a seeded ``SplitMix64`` makes runs reproducible).
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

    /// The full loop: admission, timers, history, waits, refreshes.
    ///
    /// Only the waiting happens here; every decision is made by a
    /// synchronous step (`admission`, `attemptLimit`, `conclude`), so
    /// records, decisions and error texts are built on the thread's stack
    /// rather than in this function's async frame, which stays small.
    @inlinable
    func retryLoop<Value: Sendable, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        start: C.Instant,
        first: FirstAttempt<Value>?,
        using generator: inout G,
        judge: (Value) -> AttemptOutcome,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        let timeouts = decider.timeouts(for: request.endpoint)
        var input = DecisionInput(
            outcome: .status(200), attempt: 1, elapsed: .zero, method: request.method,
            markedIdempotent: request.markedIdempotent, endpoint: request.endpoint)
        var history: [AttemptRecord] = []
        var pending = first

        while true {
            let attemptStart: C.Instant
            let result: AttemptResult<Value>
            let end: C.Instant
            if let made = pending {
                pending = nil
                attemptStart = made.start
                result = made.result
                end = made.end
            } else {
                // No attempt starts after cancellation.
                if Task.isCancelled {
                    throw cancellation(&input, history: history, request: request, start: start, using: &generator)
                }
                admitting: while true {
                    let now = clock.now
                    switch admission(request, start: start, now: now, timeouts: timeouts, history: history) {
                    case .proceed:
                        break admitting
                    case .fail(let failure):
                        throw finish(failure, request, start)
                    case .wait(let remaining):
                        do {
                            try await clock.sleep(until: now.advanced(by: remaining), tolerance: nil)
                        } catch {
                            throw cancellation(&input, history: history, request: request, start: start, using: &generator)
                        }
                    }
                }

                attemptStart = clock.now
                let startedAt = start.duration(to: attemptStart)
                let limit: Duration?
                switch attemptLimit(timeouts, startedAt: startedAt, history: history) {
                case .failure(let failure): throw finish(failure, request, start)
                case .success(let allowed): limit = allowed
                }
                if observer != nil { reportAttemptStarted(number: input.attempt, at: startedAt) }

                let context = AttemptContext(attempt: input.attempt, credentialRefreshes: input.credentialRefreshes)
                result = await perform(operation, context: context, limit: limit, startedAt: attemptStart)
                end = clock.now
            }
            // A value that arrived is kept even if the caller cancelled just
            // after: the work is done. A failure under cancellation is the
            // cancellation, whatever the operation threw.
            if Task.isCancelled, case .value = result {} else if Task.isCancelled {
                throw cancellation(&input, history: history, request: request, start: start, using: &generator)
            }

            let outcome: AttemptOutcome
            var value: Value?
            var thrown: (any Error)?
            switch result {
            case .value(let returned):
                value = returned
                outcome = judge(returned)
            case .failure(let error):
                thrown = error
                outcome = classifier.outcome(for: error)
            case .timedOut:
                outcome = .transport(.timeout)
            }

            switch conclude(
                outcome, thrown: thrown, returnedValue: value != nil, request: request, start: start,
                attemptStart: attemptStart, end: end, input: &input, history: &history, using: &generator)
            {
            case .succeed:
                if let value { return value }
                preconditionFailure("conclude succeeds only with a value")
            case .stop(var failure):
                failure.lastResponse = value
                throw finish(failure, request, start)
            case .retry(let delay, let refreshCredentials):
                if delay > .zero {
                    do {
                        try await clock.sleep(until: end.advanced(by: delay), tolerance: nil)
                    } catch {
                        throw cancellation(&input, history: history, request: request, start: start, using: &generator)
                    }
                }
                if refreshCredentials, let refresh = self.refreshCredentials {
                    if observer != nil { reportRefreshingCredentials() }
                    do {
                        try await refresh()
                    } catch {
                        if Task.isCancelled {
                            throw cancellation(&input, history: history, request: request, start: start, using: &generator)
                        }
                        throw finish(
                            refreshFailure(error, history: history, lastResponse: value), request, start)
                    }
                }
                advance(&input, past: history)
            }
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

    /// Runs one attempt; with a limit, races it against a timer on
    /// `clock` and cancels whichever loses.
    @inlinable @inline(never)
    func perform<Value: Sendable>(
        _ operation: @Sendable (AttemptContext) async throws -> Value,
        context: AttemptContext,
        limit: Duration?,
        startedAt: C.Instant
    ) async -> AttemptResult<Value> {
        guard let limit else {
            do { return .value(try await operation(context)) } catch { return .failure(error) }
        }
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

    /// What the decider's admission check means for the next attempt: go,
    /// wait out a cooldown (reported here), or give up because the
    /// cooldown rejects requests or outlasts the deadline.
    @usableFromInline
    enum AdmissionStep {
        case proceed
        case wait(Duration)
        case fail(RetryFailure)
    }

    @inlinable @inline(never)
    func admission(
        _ request: RetryRequest, start: C.Instant, now: C.Instant, timeouts: TimeoutBudget, history: [AttemptRecord]
    ) -> AdmissionStep {
        let wallNow = wallClock.timestamp(at: now)
        switch decider.admit(now: wallNow) {
        case .proceed:
            return .proceed
        case .reject(let error):
            return .fail(RetryFailure(error: error, reason: .notRetryable, attempts: history))
        case .wait(let remaining):
            if let total = timeouts.total, start.duration(to: now) + remaining >= total {
                var error = decider.cooldown.active(at: wallNow)?.error ?? SDKError(kind: .timeout)
                error.retryAfter = remaining
                return .fail(RetryFailure(error: error, reason: .deadlineExceeded, attempts: history))
            }
            observer?(.waiting(remaining, cause: .cooldown))
            telemetry?.waited(remaining, cause: .cooldown, policy: decider.policy.name, endpoint: request.endpoint)
            return .wait(remaining)
        }
    }

    /// How long the next attempt may run: the per-attempt timeout, cut to
    /// what is left of the total deadline; a failure once nothing is left.
    @inlinable @inline(never)
    func attemptLimit(
        _ timeouts: TimeoutBudget, startedAt: Duration, history: [AttemptRecord]
    ) -> Result<Duration?, RetryFailure> {
        guard let total = timeouts.total else { return .success(timeouts.perAttempt) }
        let remaining = total - startedAt
        if remaining <= .zero {
            var error = lastError(in: history) ?? SDKError(kind: .timeout, transport: .timeout)
            error.detail = error.detail ?? "total deadline of \(total.formattedForHumans) reached"
            return .failure(RetryFailure(error: error, reason: .deadlineExceeded, attempts: history))
        }
        return .success(timeouts.perAttempt.map { min($0, remaining) } ?? remaining)
    }

    /// What follows an attempt.
    @usableFromInline
    enum Conclusion {
        case succeed
        /// The failure to throw; the caller adds the last response.
        case stop(RetryFailure)
        /// Wait `delay` (already reported), refresh credentials if asked,
        /// then advance the decision input past the last record.
        case retry(delay: Duration, refreshCredentials: Bool)
    }

    /// Decides after an attempt, records it in `history`, and reports it
    /// to the observer and telemetry.
    @inlinable @inline(never)
    func conclude<G: RandomNumberGenerator>(
        _ outcome: AttemptOutcome,
        thrown: (any Error)?,
        returnedValue: Bool,
        request: RetryRequest,
        start: C.Instant,
        attemptStart: C.Instant,
        end: C.Instant,
        input: inout DecisionInput,
        history: inout [AttemptRecord],
        using generator: inout G
    ) -> Conclusion {
        let startedAt = start.duration(to: attemptStart)
        input.outcome = outcome
        input.elapsed = start.duration(to: end)
        input.now = wallClock.timestamp(at: end)
        let decision = decider.decide(input, using: &generator)

        if case .success = decision.action, returnedValue {
            if observer != nil || telemetry != nil {
                let record = AttemptRecord(
                    number: input.attempt, outcome: outcome, startedAt: startedAt,
                    duration: attemptStart.duration(to: end), decision: decision)
                observer?(.attemptFinished(record))
                telemetry?.attemptFinished(record, policy: decider.policy.name, endpoint: request.endpoint)
                observer?(.succeeded(attempts: input.attempt, elapsed: input.elapsed))
                telemetry?.requestSucceeded(
                    attempts: input.attempt, elapsed: input.elapsed, policy: decider.policy.name,
                    endpoint: request.endpoint)
            }
            return .succeed
        }

        var record = AttemptRecord(
            number: input.attempt, outcome: outcome, startedAt: startedAt,
            duration: attemptStart.duration(to: end), decision: decision,
            errorDescription: thrown.map { String(describing: $0) } ?? (returnedValue ? nil : "timed out"))
        if case .success = decision.action {
            // A rule called a thrown error or a timeout a success, but
            // there is no value to return: that is a policy mistake.
            var error = SDKError(kind: .internalError)
            if case .transport(let transport) = outcome { error.transport = transport }
            error.detail = "the policy treats \(outcome) as a success, but the operation produced no value"
            record.decision.action = .stop(error, .notRetryable)
        }
        // One allocation for the whole history: a request that failed once
        // is likely to fail again.
        if history.isEmpty { history.reserveCapacity(max(decider.policy.attempts, 1)) }
        history.append(record)
        observer?(.attemptFinished(record))
        telemetry?.attemptFinished(record, policy: decider.policy.name, endpoint: request.endpoint)

        switch record.decision.action {
        case .success:
            preconditionFailure("handled above")
        case .stop(var error, let reason):
            if error.detail == nil, let thrown { error.detail = String(describing: thrown) }
            return .stop(RetryFailure(error: error, reason: reason, attempts: history, underlyingError: thrown))
        case .retry(let delay):
            if delay > .zero {
                let cause: RetryEvent.WaitCause = decision.serverDirected ? .server : .backoff
                observer?(.waiting(delay, cause: cause))
                telemetry?.waited(delay, cause: cause, policy: decider.policy.name, endpoint: request.endpoint)
            }
            return .retry(delay: delay, refreshCredentials: decision.refreshCredentials)
        }
    }

    /// Moves the decision input on to the next attempt, past the decision
    /// recorded last.
    @inlinable @inline(never)
    func advance(_ input: inout DecisionInput, past history: [AttemptRecord]) {
        guard let last = history.last else { preconditionFailure("a retry follows a recorded attempt") }
        input.advance(after: last.decision, outcome: last.outcome, elapsed: input.elapsed, now: input.now)
    }

    // The two events the loop reports itself, built out of line: a
    // `RetryEvent` is as large as an attempt record.

    @inlinable @inline(never)
    func reportAttemptStarted(number: Int, at startedAt: Duration) {
        observer?(.attemptStarted(number: number, at: startedAt))
    }

    @inlinable @inline(never)
    func reportRefreshingCredentials() {
        observer?(.refreshingCredentials)
    }

    /// The failure for a request cancelled before or between attempts,
    /// reported like every other. `input` is in-out only so that the async
    /// loop passes it without a copy; it is not changed.
    @inlinable @inline(never)
    func cancellation<G: RandomNumberGenerator>(
        _ input: inout DecisionInput, history: [AttemptRecord], request: RetryRequest, start: C.Instant,
        using generator: inout G
    ) -> RetryFailure {
        finish(cancelledFailure(input, history: history, using: &generator), request, start)
    }

    /// The failure when refreshing credentials before a retry failed.
    @inlinable @inline(never)
    func refreshFailure(_ error: any Error, history: [AttemptRecord], lastResponse: (any Sendable)?) -> RetryFailure {
        guard let last = history.last else { preconditionFailure("a refresh follows a recorded attempt") }
        var failed = errorOf(last.decision, outcome: last.outcome)
        failed.detail = "credential refresh failed: \(error)"
        return RetryFailure(
            error: failed, reason: .notRetryable, attempts: history, lastResponse: lastResponse,
            underlyingError: error)
    }

    /// The failure for a cancelled request: the policy's error for a
    /// `cancelled` transport failure if a rule names one, otherwise the
    /// standard `cancelled` kind (never whatever the default rule says,
    /// since cancelling is the caller's choice, not a fault).
    @inlinable @inline(never)
    func cancelledFailure<G: RandomNumberGenerator>(
        _ input: DecisionInput, history: [AttemptRecord], using generator: inout G
    ) -> RetryFailure {
        var error = SDKError(kind: .cancelled, transport: .cancelled)
        if decider.matchingRule(for: .transport(.cancelled), method: input.method) != nil {
            var cancelled = input
            cancelled.outcome = .transport(.cancelled)
            if let decided = decider.decide(cancelled, using: &generator).error { error = decided }
        }
        return RetryFailure(error: error, reason: .cancelled, attempts: history)
    }

    /// The error a retry decision would have reported had it stopped.
    @usableFromInline
    func errorOf(_ decision: Decision, outcome: AttemptOutcome) -> SDKError {
        let kind = decision.ruleIndex.flatMap { decider.policy.rules[$0].error } ?? .internalError
        var error = SDKError(kind: kind)
        switch outcome {
        case .response(let status, _): error.statusCode = status
        case .transport(let transport): error.transport = transport
        }
        return error
    }

    @usableFromInline
    func lastError(in history: [AttemptRecord]) -> SDKError? {
        guard let last = history.last else { return nil }
        if let error = last.decision.error { return error }
        return errorOf(last.decision, outcome: last.outcome)
    }

    /// Reports the failure to the observer and telemetry, and returns it
    /// for throwing.
    @inlinable @inline(never)
    func finish(_ failure: RetryFailure, _ request: RetryRequest, _ start: C.Instant) -> RetryFailure {
        if observer != nil || telemetry != nil {
            let elapsed = start.duration(to: clock.now)
            observer?(.failed(error: failure.error, reason: failure.reason, attempts: failure.attempts.count, elapsed: elapsed))
            telemetry?.requestFailed(failure, elapsed: elapsed, policy: decider.policy.name, endpoint: request.endpoint)
        }
        return failure
    }
}
