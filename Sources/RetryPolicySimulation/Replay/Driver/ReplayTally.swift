import RetryPolicyCore

/// What a replay counts as its traffic runs: attempts and their load per
/// window, how requests end, the time each spent waiting between
/// attempts, and the shared breaker's periods.
///
/// A request's wait is the time between the end of its latest attempt
/// (or its arrival) and the start of its next one: backoff, a
/// server-directed delay, a cooldown. A hedged copy that starts while
/// another is in flight adds none.
struct ReplayTally: TrafficObserver {
    let context: ReplayContext

    mutating func attemptStarted(_ attempt: TrafficAttempt) {
        context.run.attempts += 1
        context.run.load.add(at: attempt.time)
        guard let active = context.active[attempt.id] else { return }
        if attempt.time > active.lastEnd {
            context.active[attempt.id]!.waited += attempt.time - active.lastEnd
            if attempt.number == 1 { context.run.heldByCooldown += 1 }
        }
    }

    mutating func breakerChanged(_ transition: CircuitBreakerTransition, at time: Duration) {
        var periods = context.run.breakerPeriods
        if let last = periods.indices.last, periods[last].end == nil { periods[last].end = time }
        switch transition {
        case .opened: periods.append(OutageStorm.BreakerPeriod(state: .open, start: time, end: nil))
        case .halfOpened: periods.append(OutageStorm.BreakerPeriod(state: .halfOpen, start: time, end: nil))
        case .closed: break
        }
        context.run.breakerPeriods = periods
    }

    mutating func requestFinished(id: Int, at time: Duration, result: TrafficResult) {
        switch result {
        case .succeeded:
            context.run.succeeded += 1
        case .failed(let failure, let rejectedByCooldown):
            context.run.failures[failure.reason, default: 0] += 1
            if rejectedByCooldown { context.run.rejectedByCooldown += 1 }
        }
        if let active = context.active.removeValue(forKey: id) { context.run.waitHistogram.add(active.waited) }
        context.run.finishedAt = max(context.run.finishedAt, time)
    }
}
