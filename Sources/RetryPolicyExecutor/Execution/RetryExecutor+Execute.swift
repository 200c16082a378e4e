import RetryPolicyCore

// MARK: - The two ways attempts run

extension RetryExecutor {
    /// Every form of `run`: every attempt inline in the caller's task, no
    /// copies side by side.
    @inlinable @inline(__always)
    func executeInCallerTask<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        using generator: inout G,
        isolation: isolated (any Actor)?,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride,
        hooks: RequestHooks<Value>,
        operation: (AttemptContext) async throws(Failure) -> Value
    ) async throws(RetryFailure) -> Value {
        try await execute(
            request, using: &generator, isolation: isolation, classify: classify, override: override, hooks: hooks,
            operation: operation,
            attempt: { context, _ in
                do throws(Failure) { return .value(try await operation(context)) } catch { return .failure(error) }
            },
            hedge: { _, _, _, _, _ throws(RetryFailure) in throw Self.hedgingNeedsConcurrency() })
    }

    /// Every form of `runConcurrently`: an attempt with a time limit races
    /// its timer in a child task, and a hedging policy runs copies side by
    /// side.
    @inlinable @inline(__always)
    func executeConcurrently<Value: Sendable, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        using generator: inout G,
        isolation: isolated (any Actor)?,
        classify: (Result<Value, any Error>) -> AttemptOutcome?,
        override: (FailedAttempt<any Error>) -> DecisionOverride,
        hooks: RequestHooks<Value>,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        var hooks = hooks
        hooks.concurrentAttempts = true
        return try await execute(
            request, using: &generator, isolation: isolation, classify: classify, override: override, hooks: hooks,
            operation: operation,
            attempt: { context, startedAt in
                // A first try that may start at once has no time limit, and
                // no reading of the clock to start it from.
                if let limit = context.timeLimit, let startedAt {
                    return await self.perform(operation, context: context, limit: limit, startedAt: startedAt)
                }
                do { return .value(try await operation(context)) } catch { return .failure(error) }
            },
            hedge: { machine, action, start, now, generator throws(RetryFailure) in
                // A policy that hedges needs time, so its requests are timed.
                guard let start, let now else { throw Self.untimedHedge() }
                let decider = self.decider
                let classifier = self.classifier
                return try await self.hedgedRun(
                    &machine, from: action, request, start: start, now: now, using: &generator, isolation: isolation,
                    hooks: hooks,
                    judge: { result, number, judged in
                        hooks.judge(
                            result, attempt: number, judged: judged, decider: decider, classifier: classifier,
                            method: request.method, classify: classify, override: override)
                    },
                    operation: operation)
            })
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

    /// Never thrown: a policy that hedges needs time, so its requests are
    /// timed. A failure rather than a trap, as above.
    @usableFromInline
    static func untimedHedge() -> RetryFailure {
        var error = SDKError(kind: .internalError)
        error.detail = "a hedged request must be timed"
        return RetryFailure(error: error, reason: .notRetryable)
    }
}

// MARK: - The one request path

extension RetryExecutor {
    /// What every form of `run` does: the first try, and everything after
    /// it in a driver (`retryLoop`, which hands a hedged request to
    /// `hedgedRun`).
    ///
    /// A first-try success costs a cancellation check, a rule lookup and
    /// no heap allocation of its own, not even in a task of its own (when
    /// neither a per-attempt timeout nor a total deadline is set, since
    /// enforcing one needs a timer task, and no hook is attached). It reads
    /// the clock only when the policy runs cooldowns: nothing else about a
    /// first try needs the time. The history is built only once something
    /// fails. A request is timed (its steps read the clock) only when a hook
    /// is attached or its policy's decisions depend on time; otherwise the
    /// clock is read only to wait.
    @inlinable @inline(__always)
    func execute<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        using generator: inout G,
        isolation: isolated (any Actor)?,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride,
        hooks: RequestHooks<Value>,
        operation: (AttemptContext) async throws(Failure) -> Value,
        attempt: nonisolated(nonsending) (AttemptContext, _ startedAt: Duration?) async -> AttemptResult<Value>,
        hedge: nonisolated(nonsending) (
            inout RequestStateMachine, RequestStateMachine.Action, _ start: Duration?, _ now: Duration?, inout G
        ) async throws(RetryFailure) -> Value
    ) async throws(RetryFailure) -> Value {
        // The common case, a first try that succeeds with no timer, hook or
        // cooldown involved, runs here; everything else continues in
        // `loop`, whose larger frame is only allocated when it is needed.
        // The checks before and after the attempt are synchronous calls, so
        // the policy and the timeout budget live on the thread's stack and
        // not in this function's async frame: on a new task the whole first
        // try fits the task's first allocation slab.
        let setup = self.setup
        let decider = setup.fields.decider
        var firstStart: Duration?
        guard setup.isUnobserved, !Task.isCancelled,
            decider.mayStartAtOnce(
                request,
                now: {
                    let now = moment()
                    firstStart = now
                    return wallTime(at: now)
                })
        else {
            let timed = !setup.isUnobserved || decider.needsTime(request)
            return try await loop(
                request, start: timed ? moment() : nil, first: nil, using: &generator, isolation: isolation, classify: classify, override: override, hooks: hooks,
                attempt: attempt, hedge: hedge)
        }
        // The operation itself, not `attempt`: a first try that may start
        // at once has no time limit to race, and a direct call lets the
        // optimizer keep what the caller's closure captures on the stack.
        let result: Result<Value, Failure>
        do throws(Failure) {
            result = .success(try await operation(AttemptContext(attempt: 1, credentialRefreshes: 0)))
        } catch {
            result = .failure(error)
        }
        var judged: AttemptOutcome?
        if case .success(let value) = result {
            let outcome = classify(.success(value)) ?? hooks.reading(decider, value)
            if decider.settlePlainSuccess(ofFirstAttempt: outcome, method: request.method) { return value }
            judged = outcome
        }
        // A request whose retries its policy's backoff alone decides
        // retries in the plain driver while it can.
        // The plain loop is inlined into `run`'s caller; `runConcurrently`
        // calls it out of line.
        if decider.retriesPlainly(request) {
            if hooks.concurrentAttempts {
                return try await plainRunOutOfLine(
                    request, first: result, judged: judged, using: &generator, isolation: isolation,
                    classify: classify, override: override, hooks: hooks, operation: operation, attempt: attempt,
                    hedge: hedge)
            }
            return try await plainRun(
                request, first: result, judged: judged, using: &generator, isolation: isolation, classify: classify,
                override: override, hooks: hooks, operation: operation, attempt: attempt, hedge: hedge)
        }
        let end = moment()
        let start = firstStart ?? end
        return try await loop(
            request, start: start,
            first: FirstAttempt(result: AttemptResult(result), judged: judged, start: start, end: end),
            using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: hooks, attempt: attempt, hedge: hedge)
    }

    /// The rest of the request, in its request span when the executor
    /// traces, with the caller's `classify` and `override` folded into the
    /// one judging closure the driver and its steps take. Out of line: a
    /// first try that succeeds must not carry the driver's frame.
    @inlinable @inline(never)
    func loop<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        start: Duration?,
        first: FirstAttempt<Value>?,
        using generator: inout G,
        isolation: isolated (any Actor)?,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride,
        hooks: RequestHooks<Value>,
        attempt: nonisolated(nonsending) (AttemptContext, _ startedAt: Duration?) async -> AttemptResult<Value>,
        hedge: nonisolated(nonsending) (
            inout RequestStateMachine, RequestStateMachine.Action, _ start: Duration?, _ now: Duration?, inout G
        ) async throws(RetryFailure) -> Value
    ) async throws(RetryFailure) -> Value {
        let decider = self.decider
        let classifier = self.classifier
        // A first try that already ran settled whether copies may run side
        // by side: it ran alone, so the rest does too.
        var hooks = hooks
        if first != nil { hooks.concurrentAttempts = false }
        return try await withRequestSpan(request, start: start, isolation: isolation) {
            () async throws(RetryFailure) -> Value in
            try await retryLoop(
                request, start: start, first: first, using: &generator, isolation: isolation, hooks: hooks,
                judge: { result, number, judged in
                    hooks.judge(
                        result, attempt: number, judged: judged, decider: decider, classifier: classifier,
                        method: request.method, classify: classify, override: override)
                },
                attempt: attempt, hedge: hedge)
        }
    }

    /// What already happened before the driver took over: a first try,
    /// or the plain driver's retries (see `plainRun`) and the attempt after
    /// them.
    @usableFromInline
    struct FirstAttempt<Value> {
        /// Attempts the plain driver retried, in order, for the machine to
        /// replay.
        @usableFromInline var earlier: [PlainRetry] = []
        /// The attempt after `earlier`; `nil` when the next attempt has not
        /// run (the request was cancelled before it, or during the wait
        /// before it when `cancelledInWait`).
        @usableFromInline var result: AttemptResult<Value>?
        @usableFromInline var cancelledInWait = false
        /// What the returned value meant, already asked of the hooks.
        @usableFromInline var judged: AttemptOutcome?
        /// What the caller's code already made of `result`, when asked.
        @usableFromInline var judgement: RequestHooks<Value>.Judgement?
        /// `nil` for a request that is not timed.
        @usableFromInline var start: Duration?
        @usableFromInline var end: Duration?

        @inlinable
        init(result: AttemptResult<Value>, judged: AttemptOutcome?, start: Duration?, end: Duration?) {
            self.result = result
            self.judged = judged
            self.start = start
            self.end = end
        }

        /// The plain driver's hand-over, at `start` when the rest of the
        /// request is timed.
        @inlinable
        init(
            earlier: [PlainRetry], result: AttemptResult<Value>?, judgement: RequestHooks<Value>.Judgement?,
            cancelledInWait: Bool, start: Duration?
        ) {
            self.earlier = earlier
            self.result = result
            self.judgement = judgement
            self.cancelledInWait = cancelledInWait
            self.start = start
            self.end = start
        }
    }
}
