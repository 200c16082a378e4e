import RetryPolicyCore

/// A request whose attempts run one after another.
extension RetryExecutor {
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
                    result, number: nil, machine: &machine, end: now, start: start, lastValue: &lastValue,
                    request: request, using: &generator, judge: judge)
            case .wait(let delay, let reason):
                // A failure after a cooldown is not decided on a response.
                if reason == .cooldown { lastValue = nil }
                action = try await waitOut(delay, reason: reason, machine: &machine, now: &now, start: start, request: request)
            case .refreshCredentials:
                action = try await refreshCredentials(machine: &machine, now: &now, start: start, request: request)
            case .succeed:
                return try succeed(lastValue, attempts: machine.attempt, request: request, start: start, now: now)
            case .fail(let failure):
                throw fail(failure, lastValue: lastValue, request: request, start: start)
            case .hedge:
                // The policy hedges this request: copies run side by side
                // from here on.
                return try await hedgedRun(
                    &machine, from: action, request, start: start, now: now, using: &generator, judge: judge,
                    operation: operation)
            }
        }
    }
}
