import RetryPolicyCore

/// The check before a first attempt, kept out of line.
///
/// The executor's fast path is an async function: every value it touches
/// may end up in its async frame, which is allocated per call. Doing the
/// check in an ordinary synchronous function keeps the policy and its
/// timeout budget on the thread's stack.
extension RetryDecider {
    /// Whether a request may be sent right now with nothing to enforce
    /// around it: no per-attempt timeout or total deadline (each needs a
    /// timer task), no circuit breaker or rate limiter to ask, no hedging,
    /// no budget that counts requests (a ratio budget's deposit is recorded
    /// by the request state machine's start) and no cooldown in force.
    /// `now` is asked for only when the policy runs cooldowns.
    @usableFromInline @inline(never)
    func mayStartAtOnce(_ request: RetryRequest, now: () -> Timestamp) -> Bool {
        guard !hasTimeLimits(forEndpoint: request.endpoint), breaker == nil, policy.hedging == nil, !countsRequests,
            rateLimiter == nil
        else { return false }
        if policy.retryAfter.cooldown == .off { return true }
        if case .proceed = admit(now: now()) { return true }
        return false
    }
}

extension RetryDecider {
    /// Whether ``mayStartAtOnce(_:now:)`` holds for every request without
    /// an endpoint, whatever the time: it depends on nothing that changes
    /// (no cooldowns are kept), so an executor asks it once.
    var mayAlwaysStartAtOnce: Bool {
        policy.retryAfter.cooldown == .off && mayStartAtOnce(RetryRequest(), now: { .systemNow() })
    }
}

extension RetryDecider {
    /// Whether a request's decisions can depend on when its steps happen:
    /// a per-attempt timeout or total deadline, a budget, a cooldown, a
    /// circuit breaker, a rate limiter, hedging, or a server delay given as
    /// a date. A
    /// request without any of these is decided the same whatever the
    /// clock says, so the executor reads it only to start a wait.
    /// Such a request's retries are decided plainly (see
    /// `retriesPlainly(_:)`).
    @usableFromInline
    func needsTime(_ request: RetryRequest) -> Bool {
        !retriesPlainly(request)
            || policy.retryAfter.headers.contains { $0.format == .http || $0.format == .unixSeconds }
    }
}

extension RetryDecider {
    /// Whether any request under this policy can need the time: for any
    /// endpoint, what ``needsTime(_:)`` asks of one request. An executor
    /// anchors wall-clock time when it is made only if so.
    @usableFromInline
    var mayNeedTime: Bool {
        needsTime(RetryRequest()) || policy.endpoints.keys.contains { hasTimeLimits(forEndpoint: $0) }
    }
}
