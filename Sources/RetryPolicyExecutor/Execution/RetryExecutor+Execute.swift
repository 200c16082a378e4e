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
    /// What every form of `run` does: the first try and the plain
    /// driver's retries here, everything else out of line (`startLater`
    /// when the first try cannot be sent at once, `machineRun` for the
    /// sequential driver, which hands a hedged request to `hedgedRun`).
    ///
    /// This part is inlined into the caller, so its async frame becomes
    /// part of the caller's: it holds the first try and the plain loop's
    /// pointer, and a request in a task of its own still fits the task
    /// allocator's first slab. Under an unobserved executor whose policy
    /// lets every request start at once, a first-try success costs a flag,
    /// the operation and a bit test (`FirstTryShortcut`, read from the
    /// executor value; then `PlainSuccessStatuses`): no rule look-up, clock
    /// reading, reference to follow or heap allocation, and nothing stored
    /// before the attempt for the failure path to read.
    ///
    /// The first try runs whatever the task's cancellation state, as a
    /// direct call of the operation would, and as seed 003's `retry` does:
    /// the operation decides what cancellation means to it (URLSession,
    /// AsyncHTTPClient and grpc-swift fail at once; a value it returns
    /// anyway is the request's). No retry starts after cancellation, and a
    /// failure under cancellation is the cancellation.
    /// A request is timed (its steps read the clock) only when a hook is
    /// attached or its policy's decisions depend on time; otherwise the
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
        if firstTry.startsAtOnce && request.endpoint == nil {
            return try await firstTryAndRest(
                request, firstStart: nil, using: &generator, isolation: isolation, classify: classify,
                override: override, hooks: hooks, operation: operation, attempt: attempt, hedge: hedge)
        }
        return try await startLater(
            request, using: &generator, isolation: isolation, classify: classify, override: override, hooks: hooks,
            operation: operation, attempt: attempt, hedge: hedge)
    }

    /// A request that may not start at once whatever the time (a hook to
    /// report to, time limits, a breaker, a cooldown kept): out of line,
    /// so that the caller's frame holds none of what deciding it takes.
    @inlinable @inline(never)
    func startLater<Value, Failure: Error, G: RandomNumberGenerator>(
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
        var firstStart: Duration?
        guard setup.isUnobserved,
            setup.fields.decider.mayStartAtOnce(
                request,
                now: {
                    let now = moment()
                    firstStart = now
                    return wallTime(at: now)
                })
        else {
            return try await machineRun(
                request, after: Result<Value, Failure>?.none, judged: nil, firstStart: nil, using: &generator,
                isolation: isolation, classify: classify, override: override, hooks: hooks, attempt: attempt,
                hedge: hedge)
        }
        return try await firstTryAndRest(
            request, firstStart: firstStart, using: &generator, isolation: isolation, classify: classify,
            override: override, hooks: hooks, operation: operation, attempt: attempt, hedge: hedge)
    }

    /// The first try, sent at once, and what follows it: its value
    /// returned, the plain driver's retries, or the sequential driver.
    /// `firstStart` is when it started, for a timed request.
    @inlinable @inline(__always)
    func firstTryAndRest<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        firstStart: Duration?,
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
        // The operation itself, not `attempt`: a first try that may start
        // at once has no time limit to race, and a direct call lets the
        // optimizer keep what the caller's closure captures on the stack.
        // The checks after the attempt are synchronous calls or flags, so
        // what they read stays on the thread's stack and out of this frame;
        // a success returns inside the `do`, where the value arrived.
        var judged: AttemptOutcome?
        let result: Result<Value, Failure>
        do throws(Failure) {
            let value = try await operation(AttemptContext(attempt: 1, credentialRefreshes: 0))
            let classified = classify(.success(value))
            if classified == nil {
                let status = hooks.status(value)
                if firstTry.isSuccess(status) || setup.plainSuccesses.contains(status) { return value }
            }
            let decider = setup.fields.decider
            let outcome = classified ?? hooks.reading(decider, value)
            if decider.settlePlainSuccess(ofFirstAttempt: outcome, method: request.method) { return value }
            judged = outcome
            result = .success(value)
        } catch {
            result = .failure(error)
        }
        if let loop = makePlainLoop(request, first: result, judged: judged) {
            return try await plainRun(
                request, loop, using: &generator, isolation: isolation, classify: classify, override: override,
                hooks: hooks, operation: operation, attempt: attempt, hedge: hedge)
        }
        return try await machineRun(
            request, after: result, judged: judged, firstStart: firstStart, using: &generator, isolation: isolation,
            classify: classify, override: override, hooks: hooks, attempt: attempt, hedge: hedge)
    }

    /// The sequential driver takes a request up: from its start (`result`
    /// is `nil`: the first try did not run here), or after its first try.
    /// Out of line, so that the plain driver's frame holds none of it.
    @inlinable @inline(never)
    func machineRun<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        after result: Result<Value, Failure>?,
        judged: AttemptOutcome?,
        firstStart: Duration?,
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
        let start: Duration?
        let first: FirstAttempt<Value>?
        if let result {
            let end = moment()
            start = firstStart ?? end
            first = FirstAttempt(result: AttemptResult(result), judged: judged, start: start, end: end)
        } else {
            start = !setup.isUnobserved || setup.fields.decider.needsTime(request) ? moment() : nil
            first = nil
        }
        return try await loop(
            request, start: start, first: first, using: &generator, isolation: isolation, classify: classify,
            override: override, hooks: hooks, attempt: attempt, hedge: hedge)
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
