import RetryPolicyCore

/// Events, logs and metrics of a request, built out of line.
extension RetryExecutor {
    /// Reports the attempts the machine recorded since `reported`.
    @inlinable @inline(never)
    func reportRecords(of machine: RequestStateMachine, from reported: inout Int, request: RetryRequest, start: C.Instant) {
        defer { reported = machine.history.count }
        guard !setup.isUnobserved, reported < machine.history.count else { return }
        for record in machine.history[reported...] {
            observer?(.attemptFinished(record))
            telemetry?.attemptFinished(record, policy: decider.policy.name, endpoint: request.endpoint)
        }
        telemetry?.budgetChanged(decider.budget, policy: decider.policy.name)
        if setup.isTraced { traceRecords(machine.history[reported...], start: start) }
    }

    @inlinable @inline(never)
    func reportWaiting(_ delay: Duration, reason: WaitReason, request: RetryRequest, at now: C.Instant) {
        observer?(.waiting(delay, cause: reason))
        telemetry?.waited(delay, cause: reason, policy: decider.policy.name, endpoint: request.endpoint)
        if setup.isTraced { traceWaiting(delay, reason: reason, at: now) }
    }

    @inlinable @inline(never)
    func reportSuccess(
        attempts: Int, history: ArraySlice<AttemptRecord>, request: RetryRequest, start: C.Instant, now: C.Instant
    ) {
        guard !setup.isUnobserved else { return }
        let elapsed = start.duration(to: now)
        observer?(.succeeded(attempts: attempts, elapsed: elapsed))
        telemetry?.requestSucceeded(
            attempts: attempts, waited: RetryTelemetry.idleTime(of: history, elapsed: elapsed), elapsed: elapsed,
            policy: decider.policy.name, endpoint: request.endpoint)
        if setup.isTraced { traceSucceeded(attempts: attempts, at: now) }
        if setup.isShadowed { compareShadow(history, liveEnd: nil, request: request, start: start) }
    }

    // The two events the loop reports itself, built out of line: a
    // `RetryEvent` is as large as an attempt record.

    @inlinable @inline(never)
    func reportAttemptStarted(number: Int, at startedAt: Duration) {
        observer?(.attemptStarted(number: number, at: startedAt))
    }

    /// A change of the circuit breaker this request caused: an event, a
    /// log line and a metric.
    @inlinable @inline(never)
    func reportBreaker(_ transition: CircuitBreakerTransition, request: RetryRequest) {
        guard !setup.isUnobserved else { return }
        observer?(.circuitBreaker(transition))
        telemetry?.breakerChanged(transition, policy: decider.policy.name, endpoint: request.endpoint)
        if setup.isTraced { traceBreaker(transition) }
    }

    @inlinable @inline(never)
    func reportRefreshingCredentials() {
        observer?(.refreshingCredentials)
    }
}
