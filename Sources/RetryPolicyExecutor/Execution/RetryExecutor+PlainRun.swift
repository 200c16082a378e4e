import RetryPolicyCore

/// The plain driver: the retries of a request that nothing observes and
/// whose policy decides them by its backoff alone.
///
/// Under a policy with no shared state, hedging or time limits, with no
/// hook attached, a retry is a function of the outcome, the attempt's
/// number and the previous delay (`RetryDecider.plainRetryDelay`), and
/// nothing about the request needs a ``RequestStateMachine`` until it ends
/// in anything but a success: a stop, a server-directed delay, an
/// override, credentials to refresh, cancellation. This loop runs those
/// retries with the caller's error type kept (no error is boxed, none is
/// turned into text) and hands everything else to the sequential driver,
/// whose machine replays the retries made so far with the same delays.
/// The request's history, failure and events are then the machine's own;
/// `ExecutorPlainRunTests` hold the two drivers to the same results.
extension RetryExecutor {
    @inlinable @inline(__always)
    func plainRun<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        first: Result<Value, Failure>,
        judged: AttemptOutcome?,
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
        let decider = setup.fields.decider
        var retries = PlainRetries<Failure>()
        var result = first
        var judged = judged
        var number = 1
        var previousDelay: Duration?
        // What was made of `result` when the loop ends on it; `nil` when
        // it ends before the next attempt ran (cancellation).
        var last: RequestHooks<Value>.Judgement?
        var cancelledInWait = false
        while true {
            let judgement = hooks.judge(
                typed: result, attempt: number, judged: judged, decider: decider, classifier: classifier,
                method: request.method, classify: classify, override: override)
            var thrown: Failure?
            switch result {
            case .success(let value):
                if judgement.override == .asPolicySays, decider.isPlainSuccess(judgement.outcome, method: request.method) {
                    return value
                }
            case .failure(let error):
                thrown = error
            }
            // A failure under cancellation is the cancellation, which the
            // machine reports.
            guard judgement.override == .asPolicySays, thrown == nil || !Task.isCancelled, retries.hasRoom,
                let delay = decider.plainRetryDelay(
                    after: judgement.outcome, attempt: number, previousDelay: previousDelay, request: request,
                    using: &generator)
            else {
                last = judgement
                break
            }
            retries.append(judgement.outcome, thrown: thrown, delay: delay)
            previousDelay = delay
            number += 1
            if delay > .zero {
                // A clock's sleep throws when the task is cancelled (the
                // standard and test clocks do), so a wait that ended
                // normally stands for the check before the attempt.
                do {
                    try await clock.sleep(for: delay, tolerance: nil)
                } catch {
                    cancelledInWait = true
                    break
                }
            } else if Task.isCancelled {
                // No attempt starts after cancellation.
                break
            }
            judged = nil
            do throws(Failure) {
                result = .success(try await operation(AttemptContext(attempt: number, credentialRefreshes: 0)))
            } catch {
                result = .failure(error)
            }
        }
        return try await handOver(
            request, retries: &retries, last: &result, judgement: &last, cancelledInWait: cancelledInWait,
            using: &generator,
            isolation: isolation, classify: classify, override: override, hooks: hooks, attempt: attempt, hedge: hedge)
    }

    /// The moment a hand-over times the rest of the request from, when its
    /// policy reads the time (a server delay given as a date): the plain
    /// retries before it needed none.
    @inlinable
    func timing(_ request: RetryRequest) -> Duration? {
        setup.fields.decider.needsTime(request) ? moment() : nil
    }

    /// The rest of the request in the sequential driver, from the plain
    /// retries made so far and the attempt after them (`last`, with what
    /// was made of it; no `judgement` when cancellation came before it
    /// ran). Everything by reference, so that the plain loop's frame holds
    /// no copy of it. Out of line, and building what it
    /// hands over itself, so that the plain loop's frame holds none of it.
    @inlinable @inline(never)
    func handOver<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        retries: inout PlainRetries<Failure>,
        last: inout Result<Value, Failure>,
        judgement: inout RequestHooks<Value>.Judgement?,
        cancelledInWait: Bool,
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
        let first = FirstAttempt(
            earlier: retries.handedOver, result: judgement.map { _ in AttemptResult(last) }, judgement: judgement,
            cancelledInWait: cancelledInWait, start: timing(request))
        return try await loop(
            request, start: first.start, first: first, using: &generator, isolation: isolation, classify: classify,
            override: override, hooks: hooks, attempt: attempt, hedge: hedge)
    }
}

/// The retries the plain driver made, kept for a hand-over: a few, inline,
/// with the caller's own error type, so that a request that retries and
/// succeeds allocates nothing for them. A request that would retry more
/// often is handed over when they are full.
@usableFromInline
struct PlainRetries<Failure: Error> {
    @usableFromInline
    struct Retry {
        @usableFromInline var outcome: AttemptOutcome
        @usableFromInline var thrown: Failure?
        @usableFromInline var delay: Duration

        @inlinable
        init(outcome: AttemptOutcome, thrown: Failure?, delay: Duration) {
            self.outcome = outcome
            self.thrown = thrown
            self.delay = delay
        }
    }

    @usableFromInline var slots: (Retry?, Retry?, Retry?, Retry?) = (nil, nil, nil, nil)
    @usableFromInline var count = 0

    @inlinable
    init() {}

    @inlinable
    var hasRoom: Bool { count < 4 }

    // Not inlined, nor is `handedOver`: each inlined use of the slots
    // would be a copy of all four in the driver's async frame.
    @inlinable @inline(never)
    mutating func append(_ outcome: AttemptOutcome, thrown: Failure?, delay: Duration) {
        let retry = Retry(outcome: outcome, thrown: thrown, delay: delay)
        switch count {
        case 0: slots.0 = retry
        case 1: slots.1 = retry
        case 2: slots.2 = retry
        default: slots.3 = retry
        }
        count += 1
    }

    /// The retries as the sequential driver takes them, in order.
    @inlinable
    var handedOver: [PlainRetry] {
        @inline(never) get {
        [slots.0, slots.1, slots.2, slots.3].prefix(count).compactMap { retry in
            retry.map { PlainRetry(outcome: $0.outcome, thrown: $0.thrown, delay: $0.delay) }
        }
        }
    }
}

/// A retry the plain driver made, as the sequential driver's machine
/// replays it.
@usableFromInline
struct PlainRetry {
    @usableFromInline var outcome: AttemptOutcome
    @usableFromInline var thrown: (any Error)?
    @usableFromInline var delay: Duration

    @inlinable
    init(outcome: AttemptOutcome, thrown: (any Error)?, delay: Duration) {
        self.outcome = outcome
        self.thrown = thrown
        self.delay = delay
    }
}
