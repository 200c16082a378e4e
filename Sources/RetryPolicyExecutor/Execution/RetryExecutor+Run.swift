import RetryPolicyCore

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
}
