import RetryPolicyCore

// MARK: - Running in the caller's task

extension RetryExecutor {
    /// Runs an operation under the policy, in the caller's task and
    /// isolation: the operation may capture state that is not `Sendable`,
    /// and what it throws reaches `classify` and `override` with its own
    /// type.
    ///
    /// - Parameters:
    ///   - request: the method, the endpoint, and whether sending it twice
    ///     is safe.
    ///   - classify: what an attempt's result means to the policy, or `nil`
    ///     for the usual reading (a returned value is a success, a
    ///     ``RetryableResponse`` is read by its status and headers, a thrown
    ///     error goes through ``classifier``). Prefer returning a condition
    ///     the policy declares (`AttemptOutcome.condition(_:)`) to deciding
    ///     in `override`: the decision then stays in the policy file, where
    ///     lint, `table` and `simulate` see it.
    ///   - override: the escape hatch, asked after every attempt the policy
    ///     does not treat as a success: retry after a delay of its choosing,
    ///     stop, or leave it to the policy. Invisible to lint and every tool
    ///     that reads the file; attempts, the total deadline and the budget
    ///     still hold.
    ///   - returningLastResponse: when the policy stops on a value the
    ///     operation returned (a final 503), return it instead of throwing,
    ///     as an HTTP client decorator does (urllib3's
    ///     `raise_on_status=False`). Failures on a thrown error still throw.
    ///   - isolation: the caller's; every attempt and hook runs in it.
    ///   - operation: one attempt.
    ///
    /// Attempts run one after another in the calling task, so an attempt
    /// cannot be interrupted: the policy's per-attempt limit reaches the
    /// operation as `AttemptContext.timeLimit`, for its client to
    /// enforce, and the total deadline is kept between attempts. A policy
    /// that hedges runs its copies one after another here (its retry rules
    /// still apply). `runConcurrently(_:classify:override:returningLastResponse:isolation:operation:)`
    /// enforces both, for a `@Sendable` operation.
    @inlinable
    public func run<Value, Failure: Error>(
        _ request: RetryRequest = RetryRequest(),
        classify: (Result<Value, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Value
    ) async throws(RetryFailure) -> Value {
        var generator = SystemRandomNumberGenerator()
        return try await run(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse, isolation: isolation, operation: operation)
    }

    /// `run(_:classify:override:returningLastResponse:isolation:operation:)` drawing jitter from
    /// `generator` (a seeded `SplitMix64` makes runs reproducible).
    @inlinable
    public func run<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        classify: (Result<Value, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Value
    ) async throws(RetryFailure) -> Value {
        try await runInCallerTask(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse, isolation: isolation, judge: { _ in .status(200) },
            keep: { _ in nil }, operation: operation)
    }

    /// Runs an operation that returns an HTTP response, in the caller's
    /// task and isolation; the policy judges each response by its status
    /// and headers (and `classify`, when it says otherwise).
    @inlinable
    public func run<Response: RetryableResponse, Failure: Error>(
        _ request: RetryRequest = RetryRequest(),
        classify: (Result<Response, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Response
    ) async throws(RetryFailure) -> Response {
        var generator = SystemRandomNumberGenerator()
        return try await run(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse, isolation: isolation, operation: operation)
    }

    /// `run(_:classify:override:returningLastResponse:isolation:operation:)` for HTTP responses, drawing
    /// jitter from `generator`.
    @inlinable
    public func run<Response: RetryableResponse, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        classify: (Result<Response, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Response
    ) async throws(RetryFailure) -> Response {
        let decider = self.decider
        return try await runInCallerTask(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse, isolation: isolation,
            judge: { decider.outcome(for: $0) }, keep: { $0 }, operation: operation)
    }

    /// Both forms of `run`: every attempt inline, no copies side by side.
    @inlinable @inline(__always)
    func runInCallerTask<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        using generator: inout G,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride,
        returningLastResponse: Bool,
        isolation: isolated (any Actor)?,
        judge: (Value) -> AttemptOutcome,
        keep: (Value) -> (any Sendable)?,
        operation: (AttemptContext) async throws(Failure) -> Value
    ) async throws(RetryFailure) -> Value {
        try await execute(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse, isolation: isolation, judge: judge, keep: keep,
            concurrentAttempts: false, operation: operation,
            attempt: { context, _ in
                do throws(Failure) { return .value(try await operation(context)) } catch { return .failure(error) }
            },
            hedge: { _, _, _, _, _ throws(RetryFailure) in throw Self.hedgingNeedsConcurrency() })
    }

    /// Never thrown: a machine made without concurrent attempts does not
    /// hedge. Kept a failure rather than a trap so that a mistake in that
    /// reasoning costs one request, not the process.
    @usableFromInline
    static func hedgingNeedsConcurrency() -> RetryFailure {
        var error = SDKError(kind: .internalError)
        error.detail = "hedged copies run side by side, which needs runConcurrently and a @Sendable operation"
        return RetryFailure(error: error, reason: .notRetryable)
    }
}

// MARK: - Running attempts in child tasks

extension RetryExecutor {
    /// Runs an operation that returns an HTTP response; the policy judges
    /// each response by its status and headers. Each attempt with a time
    /// limit runs in a child task, raced against a timer and cancelled when
    /// it loses, and a hedging policy runs copies side by side, which is why
    /// the operation must be `@Sendable`.
    @inlinable
    public func runConcurrently<Response: RetryableResponse>(
        _ request: RetryRequest = RetryRequest(),
        classify: (Result<Response, any Error>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<any Error>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: @Sendable (AttemptContext) async throws -> Response
    ) async throws(RetryFailure) -> Response {
        var generator = SystemRandomNumberGenerator()
        let decider = self.decider
        return try await runConcurrently(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse,
            isolation: isolation, judge: { decider.outcome(for: $0) },
            operation: operation)
    }

    /// `runConcurrently(_:classify:override:returningLastResponse:isolation:operation:)` drawing jitter from
    /// `generator` (a seeded `SplitMix64` makes runs reproducible).
    @inlinable
    public func runConcurrently<Response: RetryableResponse, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        classify: (Result<Response, any Error>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<any Error>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: @Sendable (AttemptContext) async throws -> Response
    ) async throws(RetryFailure) -> Response {
        let decider = self.decider
        return try await runConcurrently(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse,
            isolation: isolation, judge: { decider.outcome(for: $0) },
            operation: operation)
    }

    /// Runs an operation that reports failure only by throwing: a returned
    /// value is a success, a thrown error is judged through ``classifier``.
    @inlinable
    public func runConcurrently<Value: Sendable>(
        _ request: RetryRequest = RetryRequest(),
        classify: (Result<Value, any Error>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<any Error>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        var generator = SystemRandomNumberGenerator()
        return try await runConcurrently(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse,
            isolation: isolation, judge: { _ in .status(200) },
            operation: operation)
    }

    /// The general form: `judge` says what a returned value means (a 2xx
    /// is a success unless a rule says otherwise), thrown errors go through
    /// ``classifier``; `classify` may say otherwise about either, and
    /// `override` and `returningLastResponse` are as for `run(_:classify:override:returningLastResponse:isolation:operation:)`.
    @inlinable
    public func runConcurrently<Value: Sendable, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        classify: (Result<Value, any Error>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<any Error>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        judge: (Value) -> AttemptOutcome,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        try await execute(
            request, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse,
            isolation: isolation, judge: judge, keep: { $0 },
            concurrentAttempts: true, operation: operation,
            attempt: { context, startedAt in
                // A first try that may start at once has no time limit, and
                // no reading of the clock to start it from.
                if let limit = context.timeLimit, let startedAt {
                    return await self.perform(operation, context: context, limit: limit, startedAt: startedAt)
                }
                do { return .value(try await operation(context)) } catch { return .failure(error) }
            },
            hedge: { machine, action, start, now, generator throws(RetryFailure) in
                let classifier = self.classifier
                return try await self.hedgedRun(
                    &machine, from: action, request, start: start, now: now, using: &generator, isolation: isolation,
                    judge: { value in classify(.success(value)) ?? judge(value) },
                    judgeError: { error in classify(.failure(error)) ?? classifier.outcome(for: error) },
                    operation: operation)
            })
    }
}

// MARK: - The one request path

extension RetryExecutor {
    /// What every form of `run` does: the first try, and everything after
    /// it in `retryLoop(_:start:first:concurrentAttempts:using:isolation:judge:judgeError:override:keep:returnsLastResponse:attempt:hedge:)`.
    ///
    /// A first-try success costs a cancellation check, a rule lookup and
    /// no heap allocation of its own, not even in a task of its own (when
    /// neither a per-attempt timeout nor a total deadline is set, since
    /// enforcing one needs a timer task, and no observer or telemetry is
    /// attached). It reads the clock only when the policy runs cooldowns:
    /// nothing else about a first try needs the time. The history is built
    /// only once something fails.
    @inlinable @inline(__always)
    func execute<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        using generator: inout G,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride,
        returningLastResponse: Bool,
        isolation: isolated (any Actor)?,
        judge: (Value) -> AttemptOutcome,
        keep: (Value) -> (any Sendable)?,
        concurrentAttempts: Bool,
        operation: (AttemptContext) async throws(Failure) -> Value,
        attempt: nonisolated(nonsending) (AttemptContext, _ startedAt: C.Instant?) async -> AttemptResult<Value>,
        hedge: nonisolated(nonsending) (
            inout RequestStateMachine, RequestStateMachine.Action, _ start: C.Instant, _ now: C.Instant, inout G
        ) async throws(RetryFailure) -> Value
    ) async throws(RetryFailure) -> Value {
        // The common case, a first try that succeeds with no timer, hook or
        // cooldown involved, runs here; everything else continues in
        // `retryLoop`, whose larger frame is only allocated when it is
        // needed. The checks before and after the attempt are synchronous
        // calls, so the policy and the timeout budget live on the thread's
        // stack and not in this function's async frame: on a new task the
        // whole first try fits the task's first allocation slab.
        let setup = self.setup
        let decider = setup.fields.decider
        var firstStart: C.Instant?
        guard setup.isUnobserved, !Task.isCancelled,
            decider.mayStartAtOnce(
                request,
                now: {
                    let now = setup.fields.clock.now
                    firstStart = now
                    return setup.fields.wallClock.timestamp(at: now)
                })
        else {
            let start = setup.fields.clock.now
            return try await loop(
                request, start: start, first: nil, concurrentAttempts: concurrentAttempts, using: &generator,
                classify: classify, override: override, returningLastResponse: returningLastResponse,
            isolation: isolation, judge: judge, keep: keep, attempt: attempt,
                hedge: { machine, action, now, generator throws(RetryFailure) in
                    try await hedge(&machine, action, start, now, &generator)
                })
        }
        // The operation itself, not `attempt`: a first try that may start
        // at once has no time limit to race, and a direct call lets the
        // optimizer keep what the caller's closure captures on the stack.
        let result: AttemptResult<Value>
        do throws(Failure) {
            result = .value(try await operation(AttemptContext(attempt: 1, credentialRefreshes: 0)))
        } catch {
            result = .failure(error)
        }
        var judged: AttemptOutcome?
        if case .value(let value) = result {
            let outcome = classify(.success(value)) ?? judge(value)
            if decider.settlePlainSuccess(ofFirstAttempt: outcome, method: request.method) { return value }
            judged = outcome
        }
        let end = setup.fields.clock.now
        let start = firstStart ?? end
        return try await loop(
            request, start: start, first: FirstAttempt(result: result, judged: judged, start: start, end: end),
            concurrentAttempts: false, using: &generator, classify: classify, override: override,
            returningLastResponse: returningLastResponse,
            isolation: isolation, judge: judge,
            keep: keep, attempt: attempt,
            hedge: { machine, action, now, generator throws(RetryFailure) in
                try await hedge(&machine, action, start, now, &generator)
            })
    }

    /// The retry loop with the hooks turned into what the machine's steps
    /// take. Out of line: a first try that succeeds must not carry the
    /// retry loop's frame.
    @inlinable @inline(never)
    func loop<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        start: C.Instant,
        first: FirstAttempt<Value>?,
        concurrentAttempts: Bool,
        using generator: inout G,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride,
        returningLastResponse: Bool,
        isolation: isolated (any Actor)?,
        judge: (Value) -> AttemptOutcome,
        keep: (Value) -> (any Sendable)?,
        attempt: nonisolated(nonsending) (AttemptContext, _ startedAt: C.Instant?) async -> AttemptResult<Value>,
        hedge: nonisolated(nonsending) (
            inout RequestStateMachine, RequestStateMachine.Action, _ now: C.Instant, inout G
        ) async throws(RetryFailure) -> Value
    ) async throws(RetryFailure) -> Value {
        let classifier = self.classifier
        let decider = self.decider
        // The same call twice rather than a local function: calling one
        // would hop off the caller's isolation and back on every request.
        guard setup.isTraced else {
            return try await retryLoop(
                request, start: start, first: first, concurrentAttempts: concurrentAttempts, using: &generator,
                isolation: isolation, judge: { value in classify(.success(value)) ?? judge(value) },
                judgeError: { error in
                    if let typed = Self.typed(error, as: Failure.self), let outcome = classify(.failure(typed)) {
                        return outcome
                    }
                    return classifier.outcome(for: error)
                },
                override: { number, outcome, thrown in
                    guard thrown != nil || !decider.isPlainSuccess(outcome, method: request.method) else {
                        return .asPolicySays
                    }
                    return override(
                        FailedAttempt(number: number, outcome: outcome, thrown: thrown.flatMap { Self.typed($0, as: Failure.self) }))
                },
                keep: keep, returnsLastResponse: returningLastResponse, attempt: attempt, hedge: hedge)
        }
        return try await withRequestSpan(request, start: start, isolation: isolation) { () async throws(RetryFailure) -> Value in
            try await retryLoop(
                request, start: start, first: first, concurrentAttempts: concurrentAttempts, using: &generator,
                isolation: isolation, judge: { value in classify(.success(value)) ?? judge(value) },
                judgeError: { error in
                    if let typed = Self.typed(error, as: Failure.self), let outcome = classify(.failure(typed)) {
                        return outcome
                    }
                    return classifier.outcome(for: error)
                },
                override: { number, outcome, thrown in
                    guard thrown != nil || !decider.isPlainSuccess(outcome, method: request.method) else {
                        return .asPolicySays
                    }
                    return override(
                        FailedAttempt(number: number, outcome: outcome, thrown: thrown.flatMap { Self.typed($0, as: Failure.self) }))
                },
                keep: keep, returnsLastResponse: returningLastResponse, attempt: attempt, hedge: hedge)
        }
    }

    /// `error` as the operation's own error type.
    @inlinable @inline(__always)
    static func typed<Failure: Error>(_ error: any Error, as type: Failure.Type) -> Failure? {
        error as? Failure
    }

    /// An attempt already made before the loop took over.
    @usableFromInline
    struct FirstAttempt<Value> {
        @usableFromInline var result: AttemptResult<Value>
        /// What the returned value meant, already asked of the hooks.
        @usableFromInline var judged: AttemptOutcome?
        @usableFromInline var start: C.Instant
        @usableFromInline var end: C.Instant

        @inlinable
        init(result: AttemptResult<Value>, judged: AttemptOutcome?, start: C.Instant, end: C.Instant) {
            self.result = result
            self.judged = judged
            self.start = start
            self.end = end
        }
    }
}
