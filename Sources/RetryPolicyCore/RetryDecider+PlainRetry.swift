/// Plain retries: the decisions a driver may make without a
/// ``RequestStateMachine``.
///
/// Under a policy with no shared state (no budget, circuit breaker, rate
/// limiter or cooldown), no hedging and no time limits, a retry depends on
/// nothing but the outcome, the attempt's number, the request's method and
/// the previous delay. A driver can then run a request's retries with
/// ``plainRetryRules(for:)`` alone,
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

    /// `request`'s plain retry rules, resolved once for its attempts;
    /// `nil` unless ``retriesPlainly(_:)`` holds.
    @usableFromInline
    package func plainRetryRules(for request: RetryRequest) -> PlainRetryRules? {
        guard retriesPlainly(request) else { return nil }
        let compiled = self.compiled
        return PlainRetryRules(
            methodSlot: compiled.methodSlot(request.method),
            mayRepeat: request.retryability != .unsafe
                && compiled.allowsRetry(method: request.method, markedIdempotent: request.markedIdempotent))
    }

    /// The delay before the next attempt when `outcome`, the result of
    /// attempt `attempt` of a request sent with `method` and resolved to
    /// `rules`, is retried by the policy's backoff alone, as
    /// ``decide(_:using:)`` would decide it with the same generator; `nil`
    /// for every other decision (a success, a stop, a server-directed
    /// delay, a credential refresh), which a machine makes instead.
    @usableFromInline
    package func plainRetryDelay<G: RandomNumberGenerator>(
        after outcome: AttemptOutcome, attempt: Int, previousDelay: Duration?, rules: PlainRetryRules,
        method: HTTPMethod, using generator: inout G
    ) -> Duration? {
        let compiled = self.compiled
        guard rules.mayRepeat, attempt < compiled.attempts else { return nil }
        let index: Int
        switch outcome {
        case .response(let status, _):
            index = compiled.resolutionIndex(forStatus: status, methodSlot: rules.methodSlot)
        case .transport(let transport):
            if transport == .cancelled { return nil }
            index = compiled.resolutionIndex(
                inputSlot: CompiledPolicy.inputSlot(transport: transport), methodSlot: rules.methodSlot)
        case .grpc(let status, _):
            index = compiled.resolutionIndex(
                inputSlot: CompiledPolicy.inputSlot(grpc: status), methodSlot: rules.methodSlot)
        case .condition:
            index = compiled.resolutionIndex(for: outcome, method: method)
        }
        guard index <= compiled.unmatchedIndex else { return nil }
        // Field by field: a copy of the resolution would count references
        // to the strings of its source location.
        guard compiled.resolutions[index].action == .retry, !compiled.resolutions[index].refreshCredentials else {
            return nil
        }
        switch outcome {
        case .response(_, let headers), .grpc(_, let headers):
            // A delay the server asks for (or a gRPC pushback, which may
            // also stop) is decided with the machine: its cap, its
            // combination with the backoff.
            if !headers.fields.isEmpty && compiled.resolutions[index].honorsRetryAfter { return nil }
        case .transport, .condition:
            break
        }
        return compiled.backoffDelay(forRetry: attempt, previousDelay: previousDelay, using: &generator)
    }
}

/// What one request's plain retries depend on besides each attempt (see
/// `RetryDecider.retriesPlainly(_:)`), resolved once for the request: its
/// method's column in the rule tables, and whether its method and
/// retryability let it be sent again.
@usableFromInline
package struct PlainRetryRules: Sendable {
    let methodSlot: Int
    let mayRepeat: Bool
}
