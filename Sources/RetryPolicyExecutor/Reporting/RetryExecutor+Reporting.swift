import Instrumentation
import RetryPolicyCore

/// The one fan-out: every event of a request becomes, here and nowhere
/// else, an observer event, metrics and log lines (``RetryTelemetry``),
/// spans and span events (the request's trace) and the shadow policy's
/// comparison. The drivers and steps call these only when the executor has
/// a hook (`setup.isUnobserved` is false), and each is out of line, so a
/// request without hooks neither builds an event nor carries the code.
extension RetryExecutor {
    /// The name metrics and logs carry for the policy.
    var policyName: String { decider.policy.name }

    // MARK: Attempts

    /// An attempt is about to be sent. Built out of line: a `RetryEvent`
    /// is as large as an attempt record.
    @inlinable @inline(never)
    func reportAttemptStarted(number: Int, at startedAt: Duration) {
        hooks.observer?(.attemptStarted(number: number, at: startedAt))
    }

    /// An attempt is about to be sent at `now` of a request that started
    /// at `start` (both read, as an observed request is timed).
    @inlinable @inline(never)
    func reportAttemptStarted(number: Int, start: Duration?, now: Duration?) {
        guard let start, let now else { return }
        reportAttemptStarted(number: number, at: now - start)
    }

    /// Starts an attempt's span (and, for a hedged copy after the first,
    /// the request span's event); the context the attempt's operation runs
    /// in, so that its client's spans nest under the attempt.
    @usableFromInline @inline(never)
    func startAttemptSpan(_ number: Int, at instant: Duration, hedge: Bool) -> ServiceContext? {
        guard setup.isTraced, let trace = currentTrace else { return nil }
        let time = wallTime(at: instant)
        if hedge { trace.hedgeStarted(number, at: time) }
        return trace.startAttempt(number, at: time)
    }

    /// Reports the attempt the machine recorded last, with the breaker's
    /// change it caused.
    @inlinable @inline(never)
    func reportLastRecord(of machine: borrowing RequestStateMachine, request: RetryRequest, start: Duration?) {
        guard !setup.isUnobserved, !machine.history.isEmpty else { return }
        reportRecords(machine.history[(machine.history.count - 1)...], request: request, start: start)
        reportBreaker(of: machine, request: request)
    }

    /// Reports the attempts the machine recorded since `reported` (a
    /// hedged request judges several copies at a time).
    @inlinable @inline(never)
    func reportRecords(of machine: RequestStateMachine, from reported: inout Int, request: RetryRequest, start: Duration?) {
        defer { reported = machine.history.count }
        guard !setup.isUnobserved, reported < machine.history.count else { return }
        reportRecords(machine.history[reported...], request: request, start: start)
    }

    /// Judged attempts: one event, metric and span end per attempt, and the
    /// budget the decisions left.
    @usableFromInline @inline(never)
    func reportRecords(_ records: ArraySlice<AttemptRecord>, request: RetryRequest, start: Duration?) {
        let hooks = self.hooks
        let trace = setup.isTraced ? currentTrace : nil
        for record in records {
            hooks.observer?(.attemptFinished(record))
            hooks.telemetry?.attemptFinished(record, policy: policyName, endpoint: request.endpoint)
            if let trace, let start {
                let end = start + record.startedAt + record.duration
                trace.attemptFinished(record, at: wallTime(at: end))
            }
        }
        hooks.telemetry?.budgetChanged(decider.budget, policy: policyName)
    }

    // MARK: Between attempts

    @usableFromInline @inline(never)
    func reportWaiting(_ delay: Duration, reason: WaitReason, request: RetryRequest, at now: Duration?) {
        hooks.observer?(.waiting(delay, cause: reason))
        hooks.telemetry?.waited(delay, cause: reason, policy: policyName, endpoint: request.endpoint)
        if setup.isTraced, let now { currentTrace?.waited(delay, cause: reason, at: wallTime(at: now)) }
    }

    @inlinable @inline(never)
    func reportRefreshingCredentials() {
        hooks.observer?(.refreshingCredentials)
    }

    /// When a hedged request sends its next copy.
    @inlinable @inline(never)
    func reportNextHedge(in delay: Duration?) {
        hooks.observer?(.nextHedge(in: delay))
    }

    /// A change of the circuit breaker this request caused (if it caused
    /// one): an event, a log line, a metric and a span event.
    @usableFromInline @inline(never)
    func reportBreaker(of machine: borrowing RequestStateMachine, request: RetryRequest) {
        guard !setup.isUnobserved, let transition = machine.breakerTransition else { return }
        hooks.observer?(.circuitBreaker(transition))
        hooks.telemetry?.breakerChanged(transition, policy: policyName, endpoint: request.endpoint)
        if setup.isTraced { currentTrace?.breakerChanged(transition, at: wallTime(at: moment())) }
    }

    // MARK: The end of the request

    @usableFromInline @inline(never)
    func reportSuccess(
        attempts: Int, history: ArraySlice<AttemptRecord>, request: RetryRequest, start: Duration, now: Duration
    ) {
        guard !setup.isUnobserved else { return }
        let elapsed = now - start
        hooks.observer?(.succeeded(attempts: attempts, elapsed: elapsed))
        hooks.telemetry?.requestSucceeded(
            attempts: attempts, waited: RetryTelemetry.idleTime(of: history, elapsed: elapsed), elapsed: elapsed,
            policy: policyName, endpoint: request.endpoint)
        if setup.isTraced { currentTrace?.succeeded(attempts: attempts, at: wallTime(at: now)) }
        if setup.isShadowed { compareShadow(history, liveEnd: nil, request: request, start: start) }
    }

    /// `machine` says whether a cooldown or the breaker refused the
    /// request, for its trace.
    @usableFromInline @inline(never)
    func reportFailure(_ failure: RetryFailure, machine: RequestStateMachine?, request: RetryRequest, start: Duration?) {
        let now = moment()
        let elapsed = start.map { now - $0 } ?? .zero
        hooks.observer?(.failed(error: failure.error, reason: failure.reason, attempts: failure.attempts.count, elapsed: elapsed))
        hooks.telemetry?.requestFailed(failure, elapsed: elapsed, policy: policyName, endpoint: request.endpoint)
        if setup.isTraced {
            currentTrace?.failed(
                failure, rejection: machine?.rejection, at: wallTime(at: now))
        }
        if setup.isShadowed, let start {
            compareShadow(failure.attempts[...], liveEnd: failure.reason, request: request, start: start)
        }
    }
}
