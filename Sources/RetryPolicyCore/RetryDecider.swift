/// The engine: turns what happened on an attempt into a ``Decision``.
///
/// A decider is compiled once from a ``Policy`` and shared by every request
/// under it (it is `Sendable` and immutable apart from the budget and the
/// cooldown gate, which are lock-free or briefly locked). Deciding performs
/// no heap allocation and no I/O: time and randomness come in as arguments,
/// so the same inputs always give the same decision.
public struct RetryDecider: Sendable {
    public let policy: Policy
    /// The shared token bucket, when the policy has a budget.
    public let budget: RetryBudget?
    /// The shared server-directed cooldown.
    public let cooldown: CooldownGate

    /// First matching rule per status code (index `status - 100`), or -1.
    /// Only built when no rule is method-specific, which makes matching one
    /// array read.
    private let statusTable: [Int16]?
    /// First matching rule per transport failure, or -1.
    private let transportTable: [Int16]?

    public init(policy: Policy, budget: RetryBudget? = nil, cooldown: CooldownGate = CooldownGate()) {
        self.policy = policy
        self.budget = budget ?? policy.budget.map(RetryBudget.init(configuration:))
        self.cooldown = cooldown
        if policy.rules.count < Int(Int16.max), policy.rules.allSatisfy({ $0.methods == nil }) {
            var statuses = [Int16](repeating: -1, count: StatusPattern.validCodes.count)
            var transports = [Int16](repeating: -1, count: TransportFailure.allCases.count)
            for (index, rule) in policy.rules.enumerated() {
                for pattern in rule.statuses {
                    let codes = pattern.codes.clamped(to: StatusPattern.validCodes)
                    for code in codes where statuses[code - 100] < 0 { statuses[code - 100] = Int16(index) }
                }
                for transport in rule.transports {
                    let slot = Self.slot(of: transport)
                    if transports[slot] < 0 { transports[slot] = Int16(index) }
                }
            }
            statusTable = statuses
            transportTable = transports
        } else {
            statusTable = nil
            transportTable = nil
        }
    }

    /// The header names the policy reads, so adapters can pass only those.
    public var consultedHeaderNames: [String] { policy.retryAfter.headers.map(\.name) }

    // MARK: Matching

    /// The index of the first rule matching `outcome` for `method`.
    public func matchingRule(for outcome: AttemptOutcome, method: HTTPMethod) -> Int? {
        switch outcome {
        case .response(let status, _):
            if let statusTable {
                guard StatusPattern.validCodes.contains(status) else { return nil }
                let index = statusTable[status - 100]
                return index < 0 ? nil : Int(index)
            }
            return policy.rules.firstIndex { $0.matches(status: status, method: method) }
        case .transport(let transport):
            if let transportTable {
                let index = transportTable[Self.slot(of: transport)]
                return index < 0 ? nil : Int(index)
            }
            return policy.rules.firstIndex { $0.matches(transport: transport, method: method) }
        }
    }

    private static func slot(of transport: TransportFailure) -> Int {
        switch transport {
        case .timeout: 0
        case .connectionLost: 1
        case .offline: 2
        case .dns: 3
        case .tls: 4
        case .connectionRefused: 5
        case .cancelled: 6
        case .invalidURL: 7
        case .decoding: 8
        case .unknown: 9
        }
    }

    // MARK: Admission

    /// Whether an attempt may start at `now`, given any server-directed
    /// cooldown. Call before every attempt, the first included.
    public func admit(now: Timestamp) -> Admission {
        guard policy.retryAfter.cooldown != .off, let (until, error) = cooldown.active(at: now) else {
            return .proceed
        }
        let remaining = until.duration(since: now)
        switch policy.retryAfter.cooldown {
        case .off: return .proceed
        case .wait: return .wait(remaining)
        case .reject:
            var rejected = error
            rejected.retryAfter = remaining
            return .reject(rejected)
        }
    }

    // MARK: Deciding

    /// Decides with the system's random number generator.
    public func decide(_ input: DecisionInput) -> Decision {
        var generator = SystemRandomNumberGenerator()
        return decide(input, using: &generator)
    }

    /// Decides what to do after an attempt.
    ///
    /// A retry is allowed only if the matching rule says `retry`, the attempt
    /// is not the last, the method is retryable, a server delay is within
    /// the cap (or the policy clamps or ignores it), the delay ends before
    /// the total deadline, and the budget pays for it; the first check that
    /// fails gives the stop reason, in that order.
    public func decide<G: RandomNumberGenerator>(_ input: DecisionInput, using generator: inout G) -> Decision {
        let ruleIndex = matchingRule(for: input.outcome, method: input.method)
        let kind: SDKError.Kind
        let action: Rule.Action
        let honorRetryAfter: Bool
        let refreshCredentials: Bool
        let location: SourceLocation?
        if let ruleIndex {
            let rule = policy.rules[ruleIndex]
            kind = rule.error ?? .internalError
            action = rule.action
            honorRetryAfter = rule.honorRetryAfter ?? policy.retryAfter.honor
            refreshCredentials = rule.refreshCredentials
            location = rule.location
        } else {
            if case .response(let status, _) = input.outcome, (200...299).contains(status) {
                return success(input, ruleIndex: nil, location: nil)
            }
            kind = policy.defaultRule?.error ?? .internalError
            action = policy.defaultRule?.action ?? .stop
            honorRetryAfter = policy.retryAfter.honor
            refreshCredentials = false
            location = policy.defaultRule?.location
        }
        if action == .success { return success(input, ruleIndex: ruleIndex, location: location) }

        var error = SDKError(kind: kind)
        var serverDelay: Duration?
        switch input.outcome {
        case .response(let status, let headers):
            error.statusCode = status
            if honorRetryAfter { serverDelay = policy.retryAfter.serverDelay(in: headers, now: input.now) }
        case .transport(let transport):
            error.transport = transport
        }
        error.retryAfter = serverDelay
        recordCooldown(serverDelay: serverDelay, error: error, now: input.now)

        func stop(_ reason: StopReason) -> Decision {
            Decision(action: .stop(error, reason), ruleIndex: ruleIndex, ruleLocation: location)
        }

        if case .transport(.cancelled) = input.outcome { return stop(.cancelled) }
        guard action == .retry else { return stop(.notRetryable) }
        guard input.attempt < policy.attempts else { return stop(.attemptsExhausted) }
        if refreshCredentials && input.credentialRefreshes >= 1 { return stop(.notRetryable) }
        guard policy.idempotency.allowsRetry(method: input.method, markedIdempotent: input.markedIdempotent) else {
            return stop(.notIdempotent)
        }

        let backoffBounds = policy.backoff.bounds(forRetry: input.attempt, previousDelay: input.previousDelay)
        var delay = policy.backoff.delay(forRetry: input.attempt, previousDelay: input.previousDelay, using: &generator)
        var bounds = backoffBounds
        var serverDirected = false
        if let serverDelay {
            var chosen: Duration? = serverDelay
            if let cap = policy.retryAfter.cap, serverDelay > cap {
                switch policy.retryAfter.aboveCap {
                case .stop: return stop(.retryAfterTooLong)
                case .clamp: chosen = cap
                case .ignore: chosen = nil
                }
            }
            if let chosen {
                serverDirected = true
                switch policy.retryAfter.combine {
                case .server:
                    delay = chosen
                    bounds = chosen...chosen
                case .max:
                    delay = max(delay, chosen)
                    bounds = max(backoffBounds.lowerBound, chosen)...max(backoffBounds.upperBound, chosen)
                }
            }
        }

        if let total = policy.timeouts(for: input.endpoint).total, input.elapsed + delay >= total {
            return stop(.deadlineExceeded)
        }

        var cost = 0
        if let budget {
            let isTimeout = input.outcome == .transport(.timeout)
            cost = isTimeout ? budget.configuration.timeoutRetryCost : budget.configuration.retryCost
            guard budget.withdraw(cost) else { return stop(.budgetExhausted) }
        }

        return Decision(
            action: .retry(after: delay),
            ruleIndex: ruleIndex,
            ruleLocation: location,
            delayBounds: bounds,
            serverDirected: serverDirected,
            refreshCredentials: refreshCredentials,
            budgetCost: cost
        )
    }

    private func success(_ input: DecisionInput, ruleIndex: Int?, location: SourceLocation?) -> Decision {
        if let budget {
            budget.deposit(input.lastRetryCost > 0 ? input.lastRetryCost : budget.configuration.successRefund)
        }
        return Decision(action: .success, ruleIndex: ruleIndex, ruleLocation: location)
    }

    /// A honoured server delay starts a cooldown for every request under
    /// the policy. It is clamped to the cap so a hostile or mistaken server
    /// cannot lock clients out for longer than the policy accepts.
    private func recordCooldown(serverDelay: Duration?, error: SDKError, now: Timestamp?) {
        guard policy.retryAfter.cooldown != .off, let serverDelay, let now, serverDelay > .zero else { return }
        var length = serverDelay
        if let cap = policy.retryAfter.cap, length > cap { length = cap }
        cooldown.record(until: now + length, error: error)
    }
}
