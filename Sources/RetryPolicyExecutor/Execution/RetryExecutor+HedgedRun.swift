import Instrumentation
import RetryPolicyCore

/// The hedged driver: a request whose copies run side by side.
extension RetryExecutor {
    /// What a hedged request waits for: an attempt's result, its timer, or
    /// the caller's cancellation.
    @usableFromInline
    enum HedgeEvent<Value: Sendable>: Sendable {
        case finished(number: Int, result: AttemptResult<Value>)
        /// The timer of generation `generation` fired.
        case timer(generation: Int)
        /// The breaker's store answered the probe claim out (the answer
        /// waits in the claim's ``ProbeClaimHandoff``).
        case claimed
        case cancelled
    }

    /// A hedged request: the machine starts copies of the request while
    /// earlier ones are still in flight. Each copy runs in a child task of
    /// one task group (with its own time limit) and reports its result on
    /// a stream; the hedge timer is one task, cancelled whenever the
    /// machine asks for another. The machine decides on every result and
    /// every timer, and when it settles the request the group cancels
    /// whatever is still running, so no copy outlives the request.
    // Out of line: the sequential run's async frame, allocated for every
    // request that retries, must not grow by the hedged run's task group.
    @inlinable @inline(never)
    func hedgedRun<Value: Sendable, G: RandomNumberGenerator>(
        _ machine: inout RequestStateMachine,
        from first: RequestStateMachine.Action,
        _ request: RetryRequest,
        start: Duration,
        now: Duration,
        using generator: inout G,
        isolation: isolated (any Actor)?,
        hooks: RequestHooks<Value>,
        judge: (_ result: Result<Value, any Error>, _ attempt: Int?, _ judged: AttemptOutcome?) -> RequestHooks<Value>.Judgement,
        operation: @Sendable (AttemptContext) async throws -> Value
    ) async throws(RetryFailure) -> Value {
        var action = first
        let clock = self.clock
        let executor = self
        let (events, continuation) = AsyncStream<HedgeEvent<Value>>.makeStream()
        var timer: Task<Void, Never>?
        defer {
            timer?.cancel()
            continuation.finish()
        }
        let outcome: Result<Value, RetryFailure> = await withoutActuallyEscaping(operation) { [isolation] escapable in
            // In the caller's isolation, like the rest of the request: the
            // machine, the generator and the judges never leave it.
            _ = isolation
            return await withTaskCancellationHandler {
                await withTaskGroup(of: Void.self) { group in
                    var iterator = events.makeAsyncIterator()
                    var now = now
                    var generation = 0
                    var reported = 0
                    var lastValue: Value?
                    // The probe claim out, if any: the copies in flight go
                    // on while it is awaited. A request that ends first
                    // gives the permit back.
                    var handoff: ProbeClaimHandoff?
                    defer { handoff?.requestEnded() }
                    while true {
                        switch action {
                        case .hedge(let attempt, let next):
                            if let attempt {
                                // No copy but the first starts after
                                // cancellation (see `execute`).
                                if attempt.number > 1, Task.isCancelled {
                                    group.cancelAll()
                                    return .failure(executor.cancellation(&machine, request: request, start: start))
                                }
                                if executor.setup.isObserved {
                                    executor.reportAttemptStarted(number: attempt.number, at: now - start)
                                }
                                let context = AttemptContext(
                                    attempt: attempt.number, credentialRefreshes: machine.credentialRefreshes,
                                    timeLimit: attempt.timeLimit)
                                let startedAt = now
                                // The copy's span, whose context the copy runs in.
                                let traceContext =
                                    executor.setup.isTraced
                                    ? executor.startAttemptSpan(attempt.number, at: now, hedge: attempt.number > 1)
                                    : nil
                                group.addTask {
                                    func send() async -> AttemptResult<Value> {
                                        if let limit = attempt.timeLimit {
                                            return await executor.perform(
                                                escapable, context: context, limit: limit, startedAt: startedAt)
                                        }
                                        do { return .value(try await escapable(context)) } catch { return .failure(error) }
                                    }
                                    let result =
                                        if let traceContext { await ServiceContext.withValue(traceContext) { await send() } }
                                        else { await send() }
                                    continuation.yield(.finished(number: attempt.number, result: result))
                                }
                            }
                            // Each action replaces the timer; one that fired
                            // before it was replaced is ignored by its
                            // generation.
                            timer?.cancel()
                            timer = nil
                            generation += 1
                            if let next {
                                let deadline = executor.instant(at: now + next)
                                let current = generation
                                timer = Task {
                                    do {
                                        try await clock.sleep(until: deadline, tolerance: nil)
                                        continuation.yield(.timer(generation: current))
                                    } catch {}
                                }
                            }
                            if executor.setup.isObserved { executor.reportNextHedge(in: next) }
                        case .startAttempt(let number, let limit):
                            // One attempt alone: a copy with no hedge timer.
                            action = .hedge(start: .init(number: number, timeLimit: limit), nextHedgeIn: nil)
                            continue
                        case .wait(let delay, let reason):
                            // A cooldown before a copy.
                            do throws(RetryFailure) {
                                var timed: Duration? = now
                                action = try await executor.waitOut(
                                    delay, reason: reason, machine: &machine, now: &timed, start: start, timed: true,
                                    request: request)
                                now = timed ?? now
                            } catch {
                                group.cancelAll()
                                return .failure(error)
                            }
                            continue
                        case .payBudget(let payment):
                            var timed: Duration? = now
                            action = await executor.payBudget(
                                payment, machine: &machine, now: &timed, start: start, request: request)
                            now = timed ?? now
                            continue
                        case .claimProbe(let claim):
                            // Awaited beside the copies: their results and
                            // the caller's cancellation are not held up.
                            let pending = ProbeClaimHandoff(claim)
                            handoff = pending
                            group.addTask {
                                if pending.hand(await claim.settle()) { continuation.yield(.claimed) }
                            }
                        case .refreshCredentials:
                            do throws(RetryFailure) {
                                var timed: Duration? = now
                                action = try await executor.refreshCredentials(
                                    machine: &machine, now: &timed, start: start, request: request)
                                now = timed ?? now
                            } catch {
                                group.cancelAll()
                                return .failure(error)
                            }
                            continue
                        case .succeed:
                            group.cancelAll()
                            executor.reportRecords(of: machine, from: &reported, request: request, start: start)
                            return Result { () throws(RetryFailure) -> Value in
                                try executor.succeed(lastValue, machine: machine, request: request, start: start, now: now)
                            }
                        case .fail(let failure):
                            group.cancelAll()
                            executor.reportRecords(of: machine, from: &reported, request: request, start: start)
                            return .failure(executor.fail(failure, lastResponse: lastValue.flatMap(hooks.keep), request: request, start: start, machine: machine))
                        }

                        // The next event that counts.
                        var event: HedgeEvent<Value>?
                        while event == nil {
                            // The stream is finished only when the request
                            // ends, but its iterator also returns nil when
                            // the task is cancelled while it waits (before
                            // `.cancelled` is read): both are cancellation.
                            guard let next = await iterator.next() else {
                                group.cancelAll()
                                return .failure(executor.cancellation(&machine, request: request, start: start))
                            }
                            if case .timer(let fired) = next, fired != generation { continue }
                            event = next
                        }
                        now = executor.moment()
                        switch event! {
                        case .cancelled:
                            group.cancelAll()
                            return .failure(executor.cancellation(&machine, request: request, start: start))
                        case .timer:
                            timer = nil
                            action = machine.hedgeDelayElapsed(at: executor.time(now, since: start))
                        case .claimed:
                            guard let answer = handoff?.take() else { preconditionFailure("a claim's answer is handed once") }
                            handoff = nil
                            action = machine.probeClaimed(answer, at: executor.time(now, since: start))
                        case .finished(let number, let result):
                            do throws(RetryFailure) {
                                action = try executor.attemptFinished(
                                    result, number: number, machine: &machine, end: now, start: start, lastValue: &lastValue,
                                    request: request, using: &generator, judge: judge, reportsRecord: false)
                            } catch {
                                group.cancelAll()
                                return .failure(error)
                            }
                            if case .hedge = action { executor.reportRecords(of: machine, from: &reported, request: request, start: start) }
                        }
                        executor.reportBreaker(of: machine, request: request)
                    }
                }
            } onCancel: {
                continuation.yield(.cancelled)
            }
        }
        return try outcome.get()
    }
}


/// The answer to a hedged request's probe claim, awaited in a child task
/// while the copies in flight go on: held for the driver, or, once the
/// request is over, given back to the breaker (a probe that will never
/// start must not keep its permit).
@usableFromInline
final class ProbeClaimHandoff: Sendable {
    private struct State {
        var ended = false
        var answer: (Admission, CircuitBreakerTransition?)?
    }

    private let claim: ProbeClaim
    private let state = LockedValue(State())

    @usableFromInline
    init(_ claim: ProbeClaim) { self.claim = claim }

    /// Holds the store's answer for the driver: false (and the permit given
    /// back) when the request already ended.
    @usableFromInline
    func hand(_ answer: (Admission, CircuitBreakerTransition?)) -> Bool {
        let held = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.answer = answer
            return true
        }
        if !held { giveBack(answer) }
        return held
    }

    /// The answer, once handed.
    @usableFromInline
    func take() -> (Admission, CircuitBreakerTransition?)? {
        state.withLock { state in
            defer { state.answer = nil }
            return state.answer
        }
    }

    /// The request ended: an answer not yet taken, or handed later, gives
    /// its permit back.
    @usableFromInline
    func requestEnded() {
        let left = state.withLock { state in
            state.ended = true
            defer { state.answer = nil }
            return state.answer
        }
        if let left { giveBack(left) }
    }

    private func giveBack(_ answer: (Admission, CircuitBreakerTransition?)) {
        if case .proceed(let ticket?) = answer.0 { claim.breaker.release(ticket) }
    }
}
