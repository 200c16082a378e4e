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
    @inlinable @inline(__always)
    public func run<Value, Failure: Error>(
        _ request: RetryRequest = RetryRequest(),
        classify: (Result<Value, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Value
    ) async throws(RetryFailure) -> Value {
        var generator = SystemRandomNumberGenerator()
        return try await executeInCallerTask(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .plain(returnsLastResponse: returningLastResponse), operation: operation)
    }

    /// `run(_:classify:override:returningLastResponse:isolation:operation:)` drawing jitter from
    /// `generator` (a seeded `SplitMix64` makes runs reproducible).
    @inlinable @inline(__always)
    public func run<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        classify: (Result<Value, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Value
    ) async throws(RetryFailure) -> Value {
        try await executeInCallerTask(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .plain(returnsLastResponse: returningLastResponse), operation: operation)
    }

    /// Runs an operation that returns an HTTP response, in the caller's
    /// task and isolation; the policy judges each response by its status
    /// and headers (and `classify`, when it says otherwise).
    @inlinable @inline(__always)
    public func run<Response: RetryableResponse, Failure: Error>(
        _ request: RetryRequest = RetryRequest(),
        classify: (Result<Response, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Response
    ) async throws(RetryFailure) -> Response {
        var generator = SystemRandomNumberGenerator()
        return try await executeInCallerTask(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .response(returnsLastResponse: returningLastResponse), operation: operation)
    }

    /// `run(_:classify:override:returningLastResponse:isolation:operation:)` for HTTP responses, drawing
    /// jitter from `generator`.
    @inlinable @inline(__always)
    public func run<Response: RetryableResponse, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        classify: (Result<Response, Failure>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<Failure>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: (AttemptContext) async throws(Failure) -> Response
    ) async throws(RetryFailure) -> Response {
        try await executeInCallerTask(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .response(returnsLastResponse: returningLastResponse), operation: operation)
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
        return try await executeConcurrently(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .response(returnsLastResponse: returningLastResponse), operation: operation)
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
        try await executeConcurrently(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .response(returnsLastResponse: returningLastResponse), operation: operation)
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
        return try await executeConcurrently(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .sendable(returnsLastResponse: returningLastResponse), operation: operation)
    }

    /// `runConcurrently(_:classify:override:returningLastResponse:isolation:operation:)`
    /// for any value, drawing jitter from `generator`: a returned value is
    /// a success, a thrown error is judged through ``classifier``.
    @inlinable
    public func runConcurrently<Value: Sendable, G: RandomNumberGenerator>(
        _ request: RetryRequest = RetryRequest(),
        using generator: inout G,
        classify: (Result<Value, any Error>) -> AttemptOutcome? = { _ in nil },
        override: (FailedAttempt<any Error>) -> DecisionOverride = { _ in .asPolicySays },
        returningLastResponse: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        try await executeConcurrently(
            request, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: .sendable(returnsLastResponse: returningLastResponse), operation: operation)
    }
}
