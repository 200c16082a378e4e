import RetryPolicyCore

/// The sequential driver: a request whose attempts run one after another.
extension RetryExecutor {
    /// The full request: a ``RequestStateMachine`` decides every step, and
    /// this loop only does what it asks: runs attempts through `attempt`,
    /// sleeps on `clock`, refreshes credentials, watches for cancellation
    /// and reports events, through the steps it shares with the hedged
    /// driver. Every public form runs here: `run` performs each attempt in
    /// the caller's task, `runConcurrently` races it against its time limit
    /// in child tasks and hands a hedging request to `hedge`.
    ///
    /// This function's async frame is allocated once per request that gets
    /// here, from the task's allocator, so it holds only what crosses a
    /// wait: the machine, the last value, the instants and the action.
    /// Every step that reads the clock's instants as request times, judges
    /// a result, builds a record or a failure happens in a synchronous
    /// out-of-line function, on the thread's stack.
    ///
    /// - Parameters:
    ///   - hooks: what the caller said about the request.
    ///   - judge: what an attempt's result means, with the caller's
    ///     `classify` and `override` asked.
    ///   - attempt: performs one attempt that started at the instant given.
    ///   - hedge: continues a request the machine hedges.
    @inlinable
    func retryLoop<Value, G: RandomNumberGenerator>(
        _ request: RetryRequest,
        start: Duration?,
        first: FirstAttempt<Value>?,
        using generator: inout G,
        isolation: isolated (any Actor)?,
        hooks: RequestHooks<Value>,
        judge: (_ result: Result<Value, any Error>, _ attempt: Int?, _ judged: AttemptOutcome?) -> RequestHooks<Value>.Judgement,
        attempt: nonisolated(nonsending) (AttemptContext, _ startedAt: Duration?) async -> AttemptResult<Value>,
        hedge: nonisolated(nonsending) (
            inout RequestStateMachine, RequestStateMachine.Action, _ start: Duration?, _ now: Duration?, inout G
        ) async throws(RetryFailure) -> Value
    ) async throws(RetryFailure) -> Value {
        var machine = RequestStateMachine(decider: decider, request: request, concurrentAttempts: hooks.concurrentAttempts)
        // The value of the last attempt, for a failure to carry.
        var lastValue: Value?
        // The instant of the machine's last event: waits run from there. A
        // request that is not timed (`start` is nil: no hook, and a policy
        // that decides the same whatever the time) has no instants at all,
        // and the clock is read only by its waits.
        var now = start
        let timed = start != nil
        var action = try begin(
            &machine, first: first, start: start, now: &now, lastValue: &lastValue, request: request,
            using: &generator, judge: judge)

        while true {
            switch action {
            case .startAttempt(let number, let limit):
                lastValue = nil
                // No retry starts after cancellation; the first try runs
                // whatever the task's state (see `execute`).
                if number > 1, Task.isCancelled { throw cancellation(&machine, request: request, start: start) }
                if setup.isObserved { reportAttemptStarted(number: number, start: start, now: now) }
                let context = AttemptContext(
                    attempt: number, credentialRefreshes: machine.credentialRefreshes, timeLimit: limit)
                let result: AttemptResult<Value>
                if setup.isTraced {
                    result = await tracedAttempt(number, context: context, at: now, isolation: isolation, attempt: attempt)
                } else {
                    result = await attempt(context, now)
                }
                if timed { read(&now) }
                action = try attemptFinished(
                    result, number: nil, machine: &machine, end: now, start: start, lastValue: &lastValue,
                    request: request, using: &generator, judge: judge)
            case .wait(let delay, let reason):
                // A failure after a cooldown is not decided on a response.
                if reason == .cooldown { lastValue = nil }
                action = try await waitOut(delay, reason: reason, machine: &machine, now: &now, start: start, timed: timed,
                    request: request)
            case .refreshCredentials:
                action = try await refreshCredentials(machine: &machine, now: &now, start: start, request: request)
            case .payBudget(let payment):
                action = await payBudget(payment, machine: &machine, now: &now, start: start, request: request)
            case .claimProbe(let claim):
                action = await claimProbe(claim, machine: &machine, now: &now, start: start, request: request)
            case .succeed:
                return try succeed(lastValue, machine: machine, request: request, start: start, now: now)
            case .fail(let failure):
                if hooks.returnsLastResponse, let lastValue {
                    _ = finish(failure, request, start, machine: machine)
                    return lastValue
                }
                throw fail(
                    failure, lastResponse: lastValue.flatMap(hooks.keep), request: request, start: start,
                    machine: machine)
            case .hedge:
                // The policy hedges this request: copies run side by side
                // from here on.
                return try await hedge(&machine, action, start, now, &generator)
            }
        }
    }
}
