import RetryPolicyCore

/// One request's comparison: the candidate's decider is shown the live
/// attempts in order, at their times, through the same request state
/// machine the executor runs, and each of its decisions is set against the
/// live one.
struct ShadowComparison {
    /// How much of the request the candidate could be judged on.
    enum Coverage: String {
        /// Every decision of the candidate was made on what was observed.
        case complete
        /// The candidate would have sent what the live policy did not (a
        /// retry after the live stop, an attempt held back by its
        /// cooldown), or the caller cancelled: the rest was never observed.
        case partial
        /// Hedged requests are not compared: which copy answers first
        /// depends on timings the candidate's copies would have changed.
        case notCompared = "not_compared"
    }

    var divergences: [ShadowDivergence] = []
    var coverage: Coverage = .complete

    /// - Parameter liveEnd: why the live request failed; `nil` when it
    ///   succeeded.
    init(
        history: ArraySlice<AttemptRecord>, liveEnd: StopReason?, request: RetryRequest, startedAt wall: Timestamp,
        live: Policy, candidate: RetryDecider
    ) {
        guard live.hedging == nil, candidate.policy.hedging == nil else {
            coverage = .notCompared
            return
        }
        let liveName = live.name
        let candidateName = candidate.policy.name
        var machine = RequestStateMachine(decider: candidate, request: request)
        var generator = MiddleDraw()
        func time(_ elapsed: Duration) -> RequestTime { RequestTime(elapsed: elapsed, wall: wall + elapsed) }
        func diverge(
            _ kind: ShadowDivergence.Kind, attempt: Int, live: Decision?, candidate: Decision?,
            delayDifference: Duration? = nil, stop: StopReason? = nil
        ) {
            divergences.append(
                ShadowDivergence(
                    kind: kind, livePolicy: liveName, candidatePolicy: candidateName,
                    endpoint: request.endpoint, attempt: attempt, live: live, candidate: candidate,
                    delayDifference: delayDifference, candidateStopReason: stop))
        }
        // The time of the candidate's last event.
        var now = Duration.zero
        var action = machine.start(at: time(.zero))
        for record in history {
            if record.outcome == .transport(.cancelled) {
                coverage = .partial
                return
            }
            // Bring the candidate to this attempt, sent when the live one was.
            admission: while true {
                switch action {
                case .startAttempt:
                    break admission
                case .wait(let delay, let reason):
                    if reason == .cooldown, now + delay > record.startedAt {
                        diverge(
                            .heldByCooldown, attempt: record.number, live: nil, candidate: nil,
                            delayDifference: now + delay - record.startedAt)
                        coverage = .partial
                        return
                    }
                    now = record.startedAt
                    action = machine.waitFinished(at: time(now))
                case .refreshCredentials:
                    now = record.startedAt
                    action = machine.credentialRefreshFinished(at: time(now))
                case .payBudget(let payment):
                    action = machine.budgetPaid(payment.settleWithoutWaiting(), at: time(now))
                case .claimProbe(let claim):
                    action = machine.probeClaimed(claim.settleWithoutWaiting(), at: time(now))
                case .fail(let failure):
                    // The live policy sent this attempt; the candidate
                    // would have been refused.
                    diverge(Self.refusal(failure, machine), attempt: record.number, live: nil, candidate: nil, stop: failure.reason)
                    return
                case .succeed, .hedge:
                    coverage = .notCompared
                    return
                }
            }
            now = record.startedAt + record.duration
            var producedValue = false
            if case .response = record.outcome { producedValue = true }
            action = machine.attemptFinished(record.outcome, at: time(now), producedValue: producedValue, using: &generator)
            // A comparison after the fact never waits on shared state.
            if case .payBudget(let payment) = action {
                action = machine.budgetPaid(payment.settleWithoutWaiting(), at: time(now))
            }
            guard let decided = machine.history.last?.decision else {
                coverage = .notCompared
                return
            }
            let liveDecision = record.decision
            switch (liveDecision.action, decided.action) {
            case (.success, .success):
                return
            case (.success, _):
                diverge(.rejectedSuccess, attempt: record.number, live: liveDecision, candidate: decided)
                return
            case (_, .success):
                diverge(.acceptedAsSuccess, attempt: record.number, live: liveDecision, candidate: decided)
                return
            case (.retry(let liveDelay), .retry(let candidateDelay)):
                // Jitter draws differ between any two runs: compare the
                // middle of each delay's range. What the candidate does next
                // (wait, refresh, or be refused on admission) is settled
                // before the next live attempt, or after the last.
                let liveMiddle = Self.middle(liveDecision.delayBounds ?? liveDelay...liveDelay)
                let candidateMiddle = Self.middle(decided.delayBounds ?? candidateDelay...candidateDelay)
                if candidateMiddle != liveMiddle {
                    diverge(
                        candidateMiddle > liveMiddle ? .waitsLonger : .waitsShorter, attempt: record.number,
                        live: liveDecision, candidate: decided, delayDifference: candidateMiddle - liveMiddle)
                }
            case (.retry, .stop(_, let reason)):
                diverge(
                    reason == .budgetExhausted ? .rejectedByBudget : .wouldStop, attempt: record.number,
                    live: liveDecision, candidate: decided, stop: reason)
                return
            case (.stop(let error, _), .stop(let candidateError, let reason)):
                if error.kind != candidateError.kind {
                    diverge(.differentError, attempt: record.number, live: liveDecision, candidate: decided, stop: reason)
                }
                return
            case (.stop, .retry):
                diverge(.wouldRetry, attempt: record.number, live: liveDecision, candidate: decided)
                coverage = .partial
                return
            }
        }
        // The live request ended after deciding to retry without sending
        // again: refused on admission (its breaker, cooldown, budget or
        // deadline), or cancelled. Settle the candidate's admission on its
        // own delays and set its end against the live one.
        guard let last = history.last, last.decision.isRetry else { return }
        guard liveEnd != .cancelled else {
            coverage = .partial
            return
        }
        var waits = 0
        while true {
            switch action {
            case .wait(let delay, _) where waits < 16:
                waits += 1
                now += delay
                action = machine.waitFinished(at: time(now))
            case .refreshCredentials:
                action = machine.credentialRefreshFinished(at: time(now))
            case .payBudget(let payment):
                action = machine.budgetPaid(payment.settleWithoutWaiting(), at: time(now))
            case .claimProbe(let claim):
                action = machine.probeClaimed(claim.settleWithoutWaiting(), at: time(now))
            case .fail(let failure):
                if failure.reason != liveEnd {
                    diverge(
                        Self.refusal(failure, machine), attempt: last.number + 1, live: nil, candidate: nil,
                        stop: failure.reason)
                }
                return
            case .startAttempt, .wait, .succeed, .hedge:
                // It would have sent another attempt (or kept waiting past
                // any bound), whose answer was never observed.
                diverge(.wouldRetry, attempt: last.number, live: last.decision, candidate: machine.history.last?.decision)
                coverage = .partial
                return
            }
        }
    }

    /// What refused a request on admission, as a divergence.
    static func refusal(_ failure: RetryFailure, _ machine: RequestStateMachine) -> ShadowDivergence.Kind {
        if machine.rejectedByBreaker { return .rejectedByBreaker }
        if machine.rejectedByCooldown { return .rejectedByCooldown }
        return failure.reason == .budgetExhausted ? .rejectedByBudget : .wouldStop
    }

    /// The candidate's jitter: every draw in the middle of its range. The
    /// live policy's draws were never recorded, and a random draw of the
    /// candidate's own would make its decisions near a total deadline (retry
    /// if the delay fits, stop if not) differ from run to run; the middle
    /// is what the candidate does on average.
    struct MiddleDraw: RandomNumberGenerator {
        mutating func next() -> UInt64 { UInt64.max / 2 }
    }

    static func middle(_ range: ClosedRange<Duration>) -> Duration {
        range.lowerBound + (range.upperBound - range.lowerBound) / 2
    }
}
