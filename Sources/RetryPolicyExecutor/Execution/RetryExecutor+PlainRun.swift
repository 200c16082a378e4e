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
    /// The plain driver's loop. Inlined into the caller with the first try,
    /// so that the caller's operation is called here directly, as seed
    /// 003's `retry` calls it: called from a loop out of line, each attempt
    /// cost a frame from the task allocator and two executor switches for
    /// the closure call alone. Everything else is out of line and
    /// synchronous (`plainStep`, `setDeadline`), and the request's state
    /// lives in a `PlainLoop` allocated when the first try fails, so that
    /// the caller's async frame, which every first try carries, grows only
    /// by a pointer.
    @inlinable @inline(__always)
    func plainRun<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        _ loop: UnsafeMutablePointer<PlainLoop<Value, Failure, C.Instant>>,
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
        defer { PlainLoop.release(loop) }
        retrying: while true {
            switch plainStep(
                &loop.pointee, request, using: &generator, classify: classify, override: override, hooks: hooks)
            {
            case .done:
                if case .success(let value) = loop.pointee.result { return value }
                // A step is done only on a returned value; the machine
                // would settle anything else.
                break retrying
            case .wait:
                // A clock's sleep throws when the task is cancelled (the
                // standard and test clocks do), so a wait that ended
                // normally stands for the check before the attempt.
                do {
                    let deadline = setDeadline(&loop.pointee)
                    try await clock.sleep(until: deadline.pointee, tolerance: nil)
                } catch {
                    loop.pointee.cancelledInWait = true
                    break retrying
                }
            case .again:
                break
            case .handOver:
                break retrying
            }
            do throws(Failure) {
                loop.pointee.result = .success(
                    try await operation(AttemptContext(attempt: loop.pointee.number, credentialRefreshes: 0)))
            } catch {
                loop.pointee.result = .failure(error)
            }
        }
        return try await handOver(
            request, loop, using: &generator, isolation: isolation, classify: classify, override: override,
            hooks: hooks, attempt: attempt, hedge: hedge)
    }

    /// The plain driver's state for `request`, whose first try ended in
    /// `first`, allocated (not a class instance: a generic class's
    /// metadata is looked up at run time for every instance, and each
    /// access to its fields is checked for exclusivity); `nil` when its
    /// retries are not decided plainly.
    @inlinable @inline(never)
    func makePlainLoop<Value, Failure>(
        _ request: RetryRequest, first: Result<Value, Failure>, judged: AttemptOutcome?
    ) -> UnsafeMutablePointer<PlainLoop<Value, Failure, C.Instant>>? {
        guard let rules = setup.fields.decider.plainRetryRules(for: request) else { return nil }
        return PlainLoop.make(first, judged: judged, rules: rules)
    }

    /// Sets the loop's deadline to its retry's delay from now, and returns
    /// where it is kept: passed to the clock from there, the instant needs
    /// no room in the caller's frame (see `PlainLoop`).
    @inlinable @inline(never)
    func setDeadline<Value, Failure>(
        _ loop: inout PlainLoop<Value, Failure, C.Instant>
    ) -> UnsafeMutablePointer<C.Instant> {
        let deadline = clock.now.advanced(by: loop.previousDelay ?? .zero)
        if loop.hasDeadline {
            loop.deadline.pointee = deadline
        } else {
            loop.deadline.initialize(to: deadline)
            loop.hasDeadline = true
        }
        return loop.deadline
    }

    /// Judges `loop`'s last attempt and decides what follows it: its
    /// value returned, a retry after a wait or at once (the retry kept in
    /// `loop`), or the rest of the request handed to the sequential driver.
    @inlinable @inline(never)
    func plainStep<Value, Failure: Error, G: RandomNumberGenerator>(
        _ loop: inout PlainLoop<Value, Failure, C.Instant>,
        _ request: RetryRequest,
        using generator: inout G,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride,
        hooks: RequestHooks<Value>
    ) -> PlainStep {
        let decider = setup.fields.decider
        let number = loop.number
        let judgement = hooks.judge(
            typed: loop.result, attempt: number, judged: loop.judged.take(), decider: decider,
            classifier: classifier, method: request.method, classify: classify, override: override)
        if judgement.isPlainSuccess { return .done }
        let outcome = judgement.outcome
        let decision = judgement.override
        var thrown: Failure?
        if case .failure(let error) = loop.result { thrown = error }
        // A failure under cancellation is the cancellation, which the
        // machine reports.
        guard case .asPolicySays = decision, thrown == nil || !Task.isCancelled, loop.hasRoom,
            let delay = decider.plainRetryDelay(
                after: outcome, attempt: number, previousDelay: loop.previousDelay, rules: loop.rules,
                method: request.method, using: &generator)
        else {
            loop.last = RequestHooks<Value>.Judgement(outcome: outcome, override: decision)
            return .handOver
        }
        loop.keep(outcome, thrown: thrown, delay: delay)
        if delay > .zero { return .wait }
        // No attempt starts after cancellation.
        return Task.isCancelled ? .handOver : .again
    }

    /// The rest of the request in the sequential driver, from the plain
    /// retries made so far and the attempt after them (`loop.last`, with
    /// what was made of it; `nil` when cancellation came before it ran).
    @inlinable @inline(never)
    func handOver<Value, Failure: Error, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        _ loop: UnsafeMutablePointer<PlainLoop<Value, Failure, C.Instant>>,
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
        let loop = loop.pointee
        let first = FirstAttempt(
            earlier: loop.handedOver, result: loop.last.map { _ in AttemptResult(loop.result) }, judgement: loop.last,
            cancelledInWait: loop.cancelledInWait, start: timing(request))
        return try await self.loop(
            request, start: first.start, first: first, using: &generator, isolation: isolation, classify: classify,
            override: override, hooks: hooks, attempt: attempt, hedge: hedge)
    }

    /// The moment a hand-over times the rest of the request from, when its
    /// policy reads the time (a server delay given as a date): the plain
    /// retries before it needed none.
    @inlinable
    func timing(_ request: RetryRequest) -> Duration? {
        setup.fields.decider.needsTime(request) ? moment() : nil
    }
}

/// What the plain driver does after an attempt.
@usableFromInline
enum PlainStep {
    /// Return the attempt's value: the request succeeded.
    case done
    /// Wait for the retry's delay (`PlainLoop.previousDelay`), then send
    /// the next attempt.
    case wait
    /// Send the next attempt at once.
    case again
    /// Hand the request to the sequential driver (`handOver`).
    case handOver
}

/// One request's plain retries: its last attempt, and the retries kept for
/// a hand-over, a few, with the caller's own error type, so that a request
/// that retries and succeeds boxes no error and builds no array. A request
/// that would retry more often is handed over when they are full.
///
/// Allocated when the first try fails, one block for the loop and its
/// retries (`make`, `release`), so that the caller's async frame holds a
/// pointer and not the slots. Not a class instance: a generic class's
/// metadata is looked up at run time for every instance, and each access
/// to its fields is checked for exclusivity. Only the retries made are
/// initialized, and only they are destroyed.
@usableFromInline
struct PlainLoop<Value, Failure: Error, Instant> {
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

    /// How many retries a loop keeps.
    @usableFromInline static var capacity: Int { 4 }

    @usableFromInline let rules: PlainRetryRules
    /// The retries made, `count` of them, in the loop's block.
    @usableFromInline let kept: UnsafeMutablePointer<Retry>
    @usableFromInline var count = 0
    /// The attempt the next step judges.
    @usableFromInline var result: Result<Value, Failure>
    /// Its number.
    @usableFromInline var number = 1
    /// What the first try's returned value meant, when it asked.
    @usableFromInline var judged: AttemptOutcome?
    @usableFromInline var previousDelay: Duration?
    /// What was made of `result` when the loop ended on it; `nil` when it
    /// ended before the next attempt ran (cancellation).
    @usableFromInline var last: RequestHooks<Value>.Judgement?
    @usableFromInline var cancelledInWait = false
    /// When the current wait ends, in the loop's block after the loop;
    /// initialized at the first wait (`hasDeadline`). Not a field: the
    /// clock's `Instant` may have a size known only at run time, and the
    /// loop's fields would then be found through its type's metadata.
    @usableFromInline let deadline: UnsafeMutablePointer<Instant>
    @usableFromInline var hasDeadline = false

    /// A loop and room for its retries and deadline, in one block: the
    /// retries first, then the loop, at offsets known when compiled, then
    /// the deadline.
    @inlinable
    static func make(
        _ first: Result<Value, Failure>, judged: AttemptOutcome?, rules: PlainRetryRules
    ) -> UnsafeMutablePointer<Self> {
        let alignment = Swift.max(
            MemoryLayout<Retry>.alignment, MemoryLayout<Self>.alignment, MemoryLayout<Instant>.alignment)
        let loopOffset = rounded(MemoryLayout<Retry>.stride * capacity, to: MemoryLayout<Self>.alignment)
        let deadlineOffset = rounded(loopOffset + MemoryLayout<Self>.size, to: MemoryLayout<Instant>.alignment)
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: deadlineOffset + MemoryLayout<Instant>.size, alignment: alignment)
        let loop = (block + loopOffset).bindMemory(to: Self.self, capacity: 1)
        loop.initialize(
            to: Self(
                first, judged: judged, rules: rules, kept: block.bindMemory(to: Retry.self, capacity: capacity),
                deadline: (block + deadlineOffset).bindMemory(to: Instant.self, capacity: 1)))
        return loop
    }

    @inlinable
    static func rounded(_ offset: Int, to alignment: Int) -> Int {
        (offset + alignment - 1) / alignment * alignment
    }

    /// Destroys the loop, the retries it kept and its deadline, and frees
    /// the block.
    @inlinable
    static func release(_ loop: UnsafeMutablePointer<Self>) {
        let kept = loop.pointee.kept
        kept.deinitialize(count: loop.pointee.count)
        if loop.pointee.hasDeadline { loop.pointee.deadline.deinitialize(count: 1) }
        loop.deinitialize(count: 1)
        UnsafeMutableRawPointer(kept).deallocate()
    }

    @inlinable
    init(
        _ first: Result<Value, Failure>, judged: AttemptOutcome?, rules: PlainRetryRules,
        kept: UnsafeMutablePointer<Retry>, deadline: UnsafeMutablePointer<Instant>
    ) {
        self.rules = rules
        self.kept = kept
        self.deadline = deadline
        result = first
        self.judged = judged
    }

    @inlinable
    var hasRoom: Bool { count < Self.capacity }

    /// Keeps the retry of `result` and moves on to the next attempt.
    @inlinable
    mutating func keep(_ outcome: consuming AttemptOutcome, thrown: Failure?, delay: Duration) {
        (kept + count).initialize(to: Retry(outcome: outcome, thrown: thrown, delay: delay))
        count += 1
        previousDelay = delay
        number += 1
    }

    /// The retries as the sequential driver takes them, in order.
    @inlinable
    var handedOver: [PlainRetry] {
        UnsafeBufferPointer(start: kept, count: count).map {
            PlainRetry(outcome: $0.outcome, thrown: $0.thrown, delay: $0.delay)
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
