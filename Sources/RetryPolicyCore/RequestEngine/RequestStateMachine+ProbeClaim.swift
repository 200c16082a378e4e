/// An attempt that is a half-open circuit breaker's probe, when the
/// breaker's store may wait to grant its permit (a database that limits
/// probes fleet-wide): the machine hands the claim to its driver
/// (``RequestStateMachine/Action/claimProbe(_:)``) and goes on when the
/// driver reports the answer, so admission itself never waits on shared
/// state.
extension RequestStateMachine {
    /// The breaker answered the probe claim the machine asked for, at
    /// `time`: `answer` is what ``ProbeClaim/settle()`` (or
    /// ``ProbeClaim/settleWithoutWaiting()``) returned. An admitted probe
    /// starts, unless the request's total deadline passed while it waited
    /// (its permit is then given back); a rejection ends the request.
    /// A hedged copy's claim is answered the same way; no further copy
    /// starts while it is out, and the copies in flight go on meanwhile.
    public mutating func probeClaimed(_ answer: (Admission, CircuitBreakerTransition?), at time: RequestTime) -> Action {
        if case .hedging = state { return hedgedProbeClaimed(answer, at: time) }
        guard case .claiming = state else { preconditionFailure("probeClaimed follows claimProbe") }
        breakerTransition = answer.1
        // The cooldown was passed before the claim; the deadline is checked
        // again, at the time the answer came.
        let (before, limit, _) = admissionBeforeBreaker(at: time, checkingCooldown: false, payment: .paid(0))
        guard case .proceed = before else {
            if case .proceed(let ticket?) = answer.0 { decider.breaker?.release(ticket) }
            return admitted(before, timeLimit: limit, at: time)
        }
        let (admission, timeLimit, _) = throughBreaker(answer, timeLimit: limit, cost: 0)
        return admitted(admission, timeLimit: timeLimit, at: time)
    }
}
