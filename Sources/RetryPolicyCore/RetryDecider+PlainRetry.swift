/// Plain retries: the decisions a driver may make without a
/// ``RequestStateMachine``.
///
/// Under a policy with no shared state (no budget, circuit breaker, rate
/// limiter or cooldown), no hedging and no time limits, a retry depends on
/// nothing but the outcome, the attempt's number, the request's method and
/// the previous delay. A driver can then run a request's retries with
/// ``plainRetryDelay(after:attempt:previousDelay:request:using:)`` alone,
/// keeping only what it needs to hand the request to a machine when
/// anything else happens (a stop, a server delay, an override,
/// cancellation): the machine replays those retries with
/// `RequestStateMachine.replayRetry(_:at:producedValue:thrown:delay:)` and
/// makes the same decisions with the same delays, so the request's history
/// and failure are the machine's own.
extension RetryDecider {
    /// Whether `request`'s retries may be decided plainly (see above).
    @usableFromInline
    package func retriesPlainly(_ request: RetryRequest) -> Bool {
        let compiled = self.compiled
        return !compiled.keepsCooldowns && compiled.policy.hedging == nil && state.budget == nil
            && state.breaker == nil && state.rateLimiter == nil && !hasTimeLimits(forEndpoint: request.endpoint)
    }

    /// The delay before the next attempt when `outcome`, the result of
    /// attempt `attempt`, is retried by the policy's backoff alone, as
    /// ``decide(_:using:)`` would decide it with the same generator; `nil`
    /// for every other decision (a success, a stop, a server-directed delay,
    /// a credential refresh), which a machine makes instead.
    ///
    /// Only for a request for which ``retriesPlainly(_:)`` holds.
    @usableFromInline
    package func plainRetryDelay<G: RandomNumberGenerator>(
        after outcome: AttemptOutcome, attempt: Int, previousDelay: Duration?, request: RetryRequest,
        using generator: inout G
    ) -> Duration? {
        let compiled = self.compiled
        let index = compiled.resolutionIndex(for: outcome, method: request.method)
        guard index <= compiled.unmatchedIndex else { return nil }
        guard compiled.resolutions[index].action == .retry, !compiled.resolutions[index].refreshCredentials,
            attempt < compiled.attempts
        else { return nil }
        switch outcome {
        case .response(_, let headers):
            // A delay the server asks for is decided with the machine
            // (its cap, its combination with the backoff).
            if !headers.fields.isEmpty && compiled.resolutions[index].honorsRetryAfter { return nil }
        case .transport(let transport):
            if transport == .cancelled { return nil }
        case .grpc(_, let metadata):
            // A pushback is a server delay, or a stop: the machine decides.
            if !metadata.fields.isEmpty && compiled.resolutions[index].honorsRetryAfter { return nil }
        case .condition:
            break
        }
        guard request.retryability != .unsafe,
            compiled.allowsRetry(method: request.method, markedIdempotent: request.markedIdempotent)
        else { return nil }
        return compiled.backoffDelay(forRetry: attempt, previousDelay: previousDelay, using: &generator)
    }
}
