import RetryPolicyCore

/// The two checks around a first attempt, kept out of line.
///
/// The executor's fast path is an async function: every value it touches
/// may end up in its async frame, which is allocated per call. Doing these
/// checks in ordinary synchronous functions keeps the policy, the timeout
/// budget, the decision input and the decision on the thread's stack.
extension RetryDecider {
    /// Whether a request may be sent right now with nothing to enforce
    /// around it: no per-attempt timeout or total deadline (each needs a
    /// timer task) and no cooldown in force.
    @usableFromInline @inline(never)
    func mayStartAtOnce(_ request: RetryRequest, now: Timestamp) -> Bool {
        let timeouts = timeouts(for: request.endpoint)
        guard timeouts.perAttempt == nil, timeouts.total == nil else { return false }
        if case .proceed = admit(now: now) { return true }
        return false
    }

    /// If `outcome` of a first attempt is a plain success, makes the
    /// request's one decision (which refunds the retry budget) and returns
    /// `true`; otherwise decides nothing and returns `false`.
    ///
    /// A success draws no jitter, so the decision needs no caller's
    /// generator.
    @usableFromInline @inline(never)
    func settlePlainSuccess(_ outcome: AttemptOutcome, _ request: RetryRequest, elapsed: Duration, now: Timestamp) -> Bool {
        guard isPlainSuccess(outcome, method: request.method) else { return false }
        var unused = SystemRandomNumberGenerator()
        let decision = decide(
            DecisionInput(
                outcome: outcome, attempt: 1, elapsed: elapsed, method: request.method,
                markedIdempotent: request.markedIdempotent, endpoint: request.endpoint, now: now),
            using: &unused)
        assert(decision.action == .success, "a plain success must decide as one")
        return true
    }
}
