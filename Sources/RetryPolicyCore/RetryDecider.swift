/// The engine: turns what happened on an attempt into a ``Decision``.
///
/// A decider is the policy's compiled rules (``CompiledPolicy``, immutable)
/// plus the ledger it decides on (``SharedRetryState``: the budget, the
/// cooldown and the breaker, lock-free or briefly locked). Every request
/// that shares the ledger shares one decider. Deciding performs no heap
/// allocation and no I/O: time and randomness come in as arguments, so the
/// same inputs on the same state always give the same decision.
///
/// Both parts are shared objects, so copying a decider into every request,
/// closure and async frame costs two retains, not a copy of the policy.
public struct RetryDecider: Sendable {
    @usableFromInline
    let compiled: CompiledPolicy
    /// The ledger this decider spends from and records in.
    public let state: SharedRetryState

    @inlinable public var policy: Policy { compiled.policy }
    /// The shared token bucket, when the policy has a budget.
    public var budget: RetryBudget? { state.budget }
    /// The shared server-directed cooldown.
    public var cooldown: CooldownGate { state.cooldown }
    /// The shared circuit breaker, when the policy has one.
    public var breaker: CircuitBreaker? { state.breaker }
    /// The shared adaptive rate limiter, when the policy has a `rate_limit`.
    public var rateLimiter: AdaptiveRateLimiter? { state.rateLimiter }

    public init(
        policy: Policy, budget: RetryBudget? = nil, cooldown: CooldownGate = CooldownGate(),
        breaker: CircuitBreaker? = nil
    ) {
        compiled = CompiledPolicy(policy: policy)
        state = SharedRetryState(
            budget: budget ?? policy.budget.map(RetryBudget.init(configuration:)), cooldown: cooldown,
            breaker: breaker ?? policy.breaker.map(CircuitBreaker.init(configuration:)),
            rateLimiter: policy.rateLimit.map { AdaptiveRateLimiter(configuration: $0) })
    }

    /// A decider whose budget and breaker (when the policy has them) and
    /// cooldown are shared through `store` under `key`, by default the
    /// policy's name.
    public init(policy: Policy, store: any RetryStateStore, key: String? = nil) {
        compiled = CompiledPolicy(policy: policy)
        state = SharedRetryState(for: policy, store: store, key: key ?? policy.name)
    }

    /// A decider of `compiled` rules on `state`: the same rules on another
    /// ledger decide independently of every decider on other ledgers, and
    /// cost only the ledger to make.
    public init(compiled: CompiledPolicy, state: SharedRetryState) {
        self.compiled = compiled
        self.state = state
    }

    /// The same rules on a fresh ledger of their own, kept in this process,
    /// as `RetryDecider(policy:)` makes it.
    package func withFreshState() -> RetryDecider {
        RetryDecider(compiled: compiled, state: SharedRetryState(for: compiled.policy))
    }

    /// Whether the policy keeps state across requests (a budget, a
    /// circuit breaker, Retry-After cooldowns or a rate limit): without
    /// any, requests under one decider cannot affect each other.
    package var keepsState: Bool {
        let policy = compiled.policy
        return policy.budget != nil || policy.breaker != nil || policy.retryAfter.cooldown != .off
            || policy.rateLimit != nil
    }

    /// The header names the policy reads, so adapters can pass only those.
    @inlinable package var consultedHeaderNames: [String] { compiled.consultedHeaderNames }

    /// The time limits for a request to `endpoint`.
    ///
    /// Equivalent to `policy.timeouts(for:)`; callers on a hot async path
    /// use this form so that no copy of the policy lands in their frame.
    public func timeouts(for endpoint: String?) -> TimeoutBudget {
        compiled.policy.timeouts(for: endpoint)
    }

    /// Whether a request to `endpoint` has a per-attempt timeout or a total
    /// deadline to enforce; answered without copying the timeout budget.
    package func hasTimeLimits(forEndpoint endpoint: String?) -> Bool {
        if let endpoint, !compiled.policy.endpoints.isEmpty, compiled.policy.endpoints[endpoint] != nil {
            let budget = compiled.policy.timeouts(for: endpoint)
            return budget.perAttempt != nil || budget.total != nil
        }
        return compiled.defaultBudgetHasLimits
    }

    /// Whether `outcome` is a success that no rule reinterprets: an
    /// unmatched 2xx, or a rule whose action is `success`.
    ///
    /// Pure: it decides nothing and spends no budget.
    @usableFromInline package func isPlainSuccess(_ outcome: AttemptOutcome, method: HTTPMethod) -> Bool {
        let index = compiled.resolutionIndex(for: outcome, method: method)
        // A default whose action is `success` does not count: only a rule
        // or the implicit 2xx success makes a plain success.
        if index < compiled.ruleCount { return compiled.resolutions[index].action == .success }
        return index == compiled.implicitSuccessIndex
    }

    /// The decision for a *first* attempt whose outcome is a plain success,
    /// made without building a ``Decision``: if `outcome` is one, does what
    /// ``decide(_:using:)`` does for it (refund the budget) and returns
    /// `true`; otherwise changes nothing and returns `false`.
    ///
    /// A success decision depends on nothing but the outcome and the
    /// refund, which for a first attempt is the budget's success refund, so
    /// an executor's fast path needs no clock reading to settle it.
    public func settlePlainSuccess(ofFirstAttempt outcome: AttemptOutcome, method: HTTPMethod) -> Bool {
        guard isPlainSuccess(outcome, method: method) else { return false }
        refundSuccess(lastRetryCost: 0)
        return true
    }

    /// Whether the policy's budget counts requests (a ratio budget): then
    /// every request's start is recorded with ``recordRequestStart(at:)``,
    /// and a driver that sends a first attempt on its own must call it.
    @inlinable public var countsRequests: Bool { compiled.countsRequests }

    /// A request starts at `now`: a ratio budget takes its deposit.
    /// `RequestStateMachine.start(at:)` calls it; a driver that admits a
    /// first attempt itself (`startAdmitted(at:)`) calls it first.
    public func recordRequestStart(at now: Timestamp) {
        guard compiled.countsRequests else { return }
        state.recordRequest(at: now)
    }

    // MARK: Matching

    /// The index of the first rule matching `outcome` for `method`.
    package func matchingRule(for outcome: AttemptOutcome, method: HTTPMethod) -> Int? {
        compiled.firstMatch(for: outcome, method: method)
    }

    /// The compiled policy: first-match resolution for any input and method.
    package var compiledPolicy: CompiledPolicy { compiled }

    // MARK: Admission

    /// Whether an attempt may start at `now`, given any server-directed
    /// cooldown. Call before every attempt, the first included.
    /// The answer never carries a breaker ticket: the request state
    /// machine asks the breaker itself, after the deadline and budget.
    public func admit(now: Timestamp) -> Admission {
        state.admitThroughCooldown(at: now, mode: compiled.policy.retryAfter.cooldown)
    }

    // MARK: Deciding

    /// Decides with the system's random number generator.
    public func decide(_ input: DecisionInput) -> Decision {
        var generator = SystemRandomNumberGenerator()
        return decide(input, using: &generator)
    }

    /// Decides with the system's random number generator, paying for a
    /// retry from the budget's store and waiting for it when the store may
    /// wait (a budget shared through a database): the form for async code
    /// that drives requests itself. ``decide(_:)`` decides on this
    /// process's view of such a budget instead, without waiting.
    public func decidePaying(_ input: DecisionInput) async -> Decision {
        var generator = SystemRandomNumberGenerator()
        let decision = decide(input, using: &generator, backoff: true, defersWaitingPayment: true)
        guard let kind = decision.pendingPayment, let budget else { return decision }
        let granted = await BudgetPayment(kind: kind, cost: decision.budgetCost, budget: budget).settle()
        return settled(decision, granted: granted, input: input)
    }

    /// Decides what to do after an attempt.
    ///
    /// A retry is allowed only if the matching rule says `retry`, the attempt
    /// is not the last, the method is retryable, a server delay is within
    /// the cap (or the policy clamps or ignores it), a gRPC server's
    /// pushback does not ask for no retry, the delay ends before
    /// the total deadline, and the budget pays for it; the first check that
    /// fails gives the stop reason, in that order.
    ///
    /// Specialised for the generators the benchmarks, tests and executor
    /// pass: unspecialised, drawing a jittered delay goes through the
    /// standard library's generic `random(in:using:)` and costs more than
    /// the rest of the decision.
    @_specialize(where G == SplitMix64)
    @_specialize(where G == SystemRandomNumberGenerator)
    public func decide<G: RandomNumberGenerator>(_ input: DecisionInput, using generator: inout G) -> Decision {
        decide(input, using: &generator, backoff: true, defersWaitingPayment: false)
    }

    /// `backoff: false` decides for a hedged request: the next copy starts
    /// at once unless the server asks for a delay, so no backoff is drawn.
    /// `defersWaitingPayment: true` leaves the payment of a retry to a
    /// driver that awaits it when the budget's store may wait: the
    /// decision is then a retry with a `pendingPayment`, which
    /// ``settled(_:granted:input:)`` completes. `chosenDelay` is a retry's
    /// delay already drawn (by the executor's plain driver, whose retries
    /// a machine replays): the decision is made with it instead of a new
    /// draw, and with the bounds it was drawn from.
    ///
    /// Most outcomes are successes, which need only their resolution and
    /// the refund; everything else continues out of line.
    @inline(__always)
    func decide<G: RandomNumberGenerator>(
        _ input: DecisionInput, using generator: inout G, backoff: Bool, defersWaitingPayment: Bool,
        chosenDelay: Duration? = nil
    ) -> Decision {
        let compiled = self.compiled
        let index = compiled.resolutionIndex(for: input.outcome, method: input.method)
        if index == compiled.implicitSuccessIndex {
            refundSuccess(lastRetryCost: input.lastRetryCost)
            return Decision(successBy: nil, at: nil)
        }
        if compiled.resolutions[index].action == .success {
            refundSuccess(lastRetryCost: input.lastRetryCost)
            return Decision(
                successBy: compiled.ruleIndex(resolutionIndex: index), at: compiled.resolutions[index].location)
        }
        return decideFailure(
            input, resolutionIndex: index, using: &generator, backoff: backoff, defersWaitingPayment: defersWaitingPayment,
            chosenDelay: chosenDelay)
    }

    /// The decision for an outcome whose resolution (at `index` in the
    /// compiled policy's resolutions) is `retry` or `stop`.
    @inline(never)
    private func decideFailure<G: RandomNumberGenerator>(
        _ input: DecisionInput, resolutionIndex index: Int, using generator: inout G, backoff: Bool,
        defersWaitingPayment: Bool, chosenDelay: Duration?
    ) -> Decision {
        let compiled = self.compiled
        let action = compiled.resolutions[index].action
        let kind = compiled.resolutions[index].errorKind ?? .internalError
        let error = failureError(input, resolutionIndex: index)
        let serverDelay = error.retryAfter

        // What the policy makes of the server's delay (see the table in
        // docs/policy-format.md): within the cap it is taken as it is;
        // above it, `clamp` takes the cap, `stop` gives up (still keeping
        // clients away for the cap), `ignore` disregards the header
        // entirely, so it neither delays the retry nor starts a cooldown.
        var honoured: Duration? = serverDelay
        var tooLong = false
        if let delay = serverDelay, let cap = compiled.retryAfterCap, delay > cap {
            switch compiled.aboveCap {
            case .stop:
                honoured = cap
                tooLong = true
            case .clamp: honoured = cap
            case .ignore: honoured = nil
            }
        }
        if compiled.keepsCooldowns { recordCooldown(honoured, error: error, now: input.now) }

        if case .transport(.cancelled) = input.outcome { return stop(error, .cancelled, resolutionIndex: index) }
        guard action == .retry else { return stop(error, .notRetryable, resolutionIndex: index) }
        // Some budget styles count every retryable failure, the last
        // attempt included, before anything else decides (gRPC's, gRFC A6).
        let mark = state.recordFailure(driverPays: defersWaitingPayment)
        guard input.attempt < compiled.attempts else {
            return stop(error, .attemptsExhausted, resolutionIndex: index, abandoning: mark)
        }
        let refreshCredentials = compiled.resolutions[index].refreshCredentials
        if refreshCredentials && input.credentialRefreshes >= 1 {
            return stop(error, .notRetryable, resolutionIndex: index, abandoning: mark)
        }
        guard !input.markedUnsafe, compiled.allowsRetry(method: input.method, markedIdempotent: input.markedIdempotent)
        else {
            return stop(error, .notIdempotent, resolutionIndex: index, abandoning: mark)
        }
        if tooLong { return stop(error, .retryAfterTooLong, resolutionIndex: index, abandoning: mark) }
        if case .grpc(_, let metadata) = input.outcome, compiled.resolutions[index].honorsRetryAfter,
            case .stop? = GRPCPushback(in: metadata)
        {
            return stop(error, .serverPushback, resolutionIndex: index, abandoning: mark)
        }

        var delay = Duration.zero
        var backoffBounds = Duration.zero...Duration.zero
        if backoff, let chosenDelay {
            delay = chosenDelay
            backoffBounds = compiled.policy.backoff.bounds(forRetry: input.attempt, previousDelay: input.previousDelay)
        } else if backoff {
            (delay, backoffBounds) = compiled.policy.backoff.delayAndBounds(
                forRetry: input.attempt, previousDelay: input.previousDelay, using: &generator)
        }
        var bounds = backoffBounds
        var serverDirected = false
        if let chosen = honoured {
            serverDirected = true
            switch compiled.combine {
            case .server:
                delay = chosen
                bounds = chosen...chosen
            case .max:
                delay = max(delay, chosen)
                bounds = max(backoffBounds.lowerBound, chosen)...max(backoffBounds.upperBound, chosen)
            }
        }

        let total = compiled.hasEndpointOverrides ? compiled.policy.timeouts(for: input.endpoint).total : compiled.defaultTotal
        if let total, input.elapsed + delay >= total {
            return stop(error, .deadlineExceeded, resolutionIndex: index, abandoning: mark)
        }

        let cost: Int
        var pending: BudgetPayment.Kind?
        switch state.payForRetry(
            after: mark, kind: kind, isTimeout: input.outcome == .transport(.timeout), at: input.now,
            driverPays: defersWaitingPayment)
        {
        case .paid(let paid): cost = paid
        case .pending(let payment, let owed):
            cost = owed
            pending = payment
        case .refused: return stop(error, .budgetExhausted, resolutionIndex: index)
        }

        var decision = Decision(
            action: .retry(after: delay),
            ruleIndex: compiled.ruleIndex(resolutionIndex: index),
            ruleLocation: compiled.resolutions[index].location,
            delayBounds: bounds,
            serverDirected: serverDirected,
            refreshCredentials: refreshCredentials,
            budgetCost: cost,
            errorKind: kind
        )
        decision.pendingPayment = pending
        return decision
    }

    /// The error an attempt's failure reports under the resolution at
    /// `index`: its kind, the response's status or the transport failure
    /// or condition, and the server's delay when the rule honours it.
    private func failureError(_ input: DecisionInput, resolutionIndex index: Int) -> SDKError {
        var error = SDKError(kind: compiled.resolutions[index].errorKind ?? .internalError)
        switch input.outcome {
        case .response(let status, let headers):
            error.statusCode = status
            if compiled.resolutions[index].honorsRetryAfter {
                error.retryAfter = compiled.policy.retryAfter.serverDelay(in: headers, now: input.now)
            }
        case .transport(let transport):
            error.transport = transport
        case .condition(let condition):
            error.condition = condition
        case .grpc(let status, let metadata):
            error.grpcStatus = status
            if compiled.resolutions[index].honorsRetryAfter, case .retry(let delay)? = GRPCPushback(in: metadata) {
                error.retryAfter = delay
            }
        }
        return error
    }

    /// A stop with `error` for `reason`, decided by the resolution at
    /// `index`; the budget settles what it left of the failure marked
    /// `mark` to a payment that will not come.
    @inline(__always)
    private func stop(
        _ error: SDKError, _ reason: StopReason, resolutionIndex index: Int, abandoning mark: BudgetFailureMark = .unrecorded
    ) -> Decision {
        state.abandon(mark)
        return Decision(
            action: .stop(error, reason), ruleIndex: compiled.ruleIndex(resolutionIndex: index),
            ruleLocation: compiled.resolutions[index].location)
    }

    /// `decision` (a retry with a `pendingPayment`) once its payment was
    /// answered: the retry when `granted`, otherwise the stop for an
    /// exhausted budget.
    package func settled(_ decision: Decision, granted: Bool, input: DecisionInput) -> Decision {
        var settled = decision
        settled.pendingPayment = nil
        if granted { return settled }
        let index = compiled.resolutionIndex(for: input.outcome, method: input.method)
        var error = failureError(input, resolutionIndex: index)
        if let kind = decision.errorKind { error.kind = kind }
        return Decision(action: .stop(error, .budgetExhausted), ruleIndex: decision.ruleIndex, ruleLocation: decision.ruleLocation)
    }

    /// Pays for a hedge that starts because the hedging delay passed (no
    /// failure to put a price on it), at `now` when known, as the
    /// budget's style prices it. Returns what was paid, or `nil` when the
    /// budget refuses.
    package func payForHedge(at now: Timestamp? = nil) -> Int? {
        switch state.payForUnpricedRetry(at: now, driverPays: false) {
        case .paid(let cost): cost
        case .pending(_, let cost): cost
        case .refused: nil
        }
    }

    /// Gives back what `payForHedge(at:)` or a retry decision took for a
    /// hedge that never started.
    package func refundUnstartedHedge(_ cost: Int) {
        guard cost > 0 else { return }
        state.cancel(.paid(cost))
    }

    /// A success returns to the budget what its style says.
    @inline(__always)
    private func refundSuccess(lastRetryCost: Int) {
        state.recordSuccess(lastRetryCost: lastRetryCost)
    }

    /// A honoured server delay (already cut to the cap) starts a cooldown
    /// for every request under the policy, so a hostile or mistaken server
    /// cannot lock clients out for longer than the policy accepts.
    private func recordCooldown(_ length: Duration?, error: SDKError, now: Timestamp?) {
        guard compiled.keepsCooldowns, let length, let now, length > .zero else { return }
        cooldown.record(until: now + length, error: error)
    }
}
