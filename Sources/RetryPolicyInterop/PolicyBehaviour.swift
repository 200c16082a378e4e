import RetryPolicyCore

/// What a policy does, as the other layers' formats can say it: which
/// inputs it retries (whatever the method), and where each setting is
/// written so that a warning can point at it.
struct PolicyBehaviour {
    let policy: Policy
    let file: String
    /// Statuses retried for at least one method.
    var retriedStatuses: Set<Int> = []
    /// Transport classes retried for at least one method.
    var retriedTransports: Set<TransportFailure> = []
    /// gRPC statuses retried for at least one method (by `grpc` rules, or
    /// by a retrying default when the policy has `grpc` rules).
    var retriedGRPC: Set<GRPCStatusCode> = []
    /// Methods the policy does not retry although it retries the input for
    /// another method (its idempotency list, or rules limited to methods).
    var methodsNotRetried: Set<HTTPMethod> = []

    init(policy: Policy, file: String) {
        self.policy = policy
        self.file = file
        // Classify with at least two attempts and no budget or deadline, so
        // that "which inputs are retried" does not depend on them.
        var probe = policy
        probe.attempts = max(policy.attempts, 2)
        probe.budget = nil
        probe.timeouts = TimeoutBudget()
        probe.endpoints = [:]
        probe.retryAfter.cooldown = .off
        let decider = RetryDecider(policy: probe)
        // gRPC statuses count only in a policy that names them: otherwise
        // a retrying default would claim every one.
        let inputs: [AttemptOutcome] = StatusPattern.validCodes.map(AttemptOutcome.status)
            + TransportFailure.allCases.map(AttemptOutcome.transport)
            + (policy.hasGRPCRules ? GRPCStatusCode.allCases.map { AttemptOutcome.grpc($0) } : [])
        for outcome in inputs {
            var retriedFor: Set<HTTPMethod> = []
            for method in HTTPMethod.standard {
                var generator = SplitMix64(seed: 0)
                let decision = decider.decide(DecisionInput(outcome: outcome, attempt: 1, method: method), using: &generator)
                if decision.isRetry { retriedFor.insert(method) }
            }
            guard !retriedFor.isEmpty else { continue }
            switch outcome {
            case .response(let status, _): retriedStatuses.insert(status)
            case .transport(let failure): retriedTransports.insert(failure)
            case .grpc(let status, _): retriedGRPC.insert(status)
            case .condition: break
            }
            methodsNotRetried.formUnion(Set(HTTPMethod.standard).subtracting(retriedFor))
        }
    }

    /// Whether some input is retryable (when attempts allow).
    var retriesSomething: Bool { !(retriedStatuses.isEmpty && retriedTransports.isEmpty && retriedGRPC.isEmpty) }

    /// Whether the policy retries anything at all.
    var retriesAnything: Bool { policy.attempts > 1 && retriesSomething }

    /// Where `keys` (the first written) are, else the policy itself.
    func location(_ keys: String...) -> SourceLocation {
        for key in keys { if let location = policy.keyLocations[key] { return location } }
        return policy.location ?? SourceLocation(file: file, line: 1, column: 1)
    }

    /// The upper bound of the policy's backoff before retry `k` (the lower
    /// bound is zero under full jitter).
    func backoffBounds(forRetry k: Int) -> ClosedRange<Duration> {
        policy.backoff.bounds(forRetry: k, previousDelay: nil)
    }

    /// Whether a rule that can match an input overrides `retry_after.honor`.
    var rulesOverridingRetryAfter: [Int] {
        policy.rules.indices.filter { policy.rules[$0].honorRetryAfter != nil && policy.rules[$0].honorRetryAfter != policy.retryAfter.honor }
    }

    /// Whether the policy ever reads a server delay.
    var honoursServerDelays: Bool {
        policy.retryAfter.honor || policy.rules.contains { $0.honorRetryAfter == true }
    }

    /// The warnings every target shares: what no other layer's format has.
    func commonWarnings(target: String) -> [InteropWarning] {
        var warnings: [InteropWarning] = []
        if !methodsNotRetried.isEmpty && retriesAnything {
            let names = HTTPMethod.standard.filter(methodsNotRetried.contains).map(\.rawValue).joined(separator: ", ")
            let ruleWithMethods = policy.rules.firstIndex { $0.methods != nil }
            let at = ruleWithMethods.map { location("rules[\($0)].methods", "rules[\($0)]") } ?? location("idempotency.methods", "idempotency")
            warnings.append(InteropWarning(
                feature: "idempotency", location: at,
                message: "\(target) retries every method; the policy does not retry \(names)"))
        }
        for (index, rule) in policy.rules.enumerated() where rule.refreshCredentials && rule.action == .retry {
            warnings.append(InteropWarning(
                feature: "refresh_credentials", location: location("rules[\(index)].refresh_credentials", "rules[\(index)]"),
                message: "\(target) cannot refresh credentials before a retry"))
        }
        if policy.retryAfter.cooldown != .off {
            warnings.append(InteropWarning(
                feature: "retry_after.cooldown", location: location("retry_after.cooldown", "retry_after"),
                message: "\(target) has no cooldown shared between requests (cooldown: \(policy.retryAfter.cooldown))"))
        }
        if !policy.endpoints.isEmpty {
            warnings.append(InteropWarning(
                feature: "endpoints", location: location("endpoints"),
                message: "per-endpoint timeouts are not exported (\(plural(policy.endpoints.count, "endpoint"))); export one configuration per route instead"))
        }
        return warnings
    }

    /// What the target cannot express of the policy's backoff: jitter
    /// other than full (the target's), and the first retry whose wait
    /// differs from `targetBound(k)`, the target's upper bound with full
    /// jitter for the retries the exported configuration makes. A linear
    /// backoff's difference is located at `backoff.shape`, so it is never
    /// exported as if the target could grow linearly.
    func backoffWarnings(target: String, retries: Int, targetBound: (Int) -> Duration) -> [InteropWarning] {
        guard retries >= 1 else { return [] }
        var warnings: [InteropWarning] = []
        let backoff = policy.backoff
        if backoff.min > .zero {
            warnings.append(InteropWarning(
                feature: "backoff.min", location: location("backoff.min", "backoff"),
                message: "\(target) has no minimum delay; the policy waits at least \(backoff.min.formattedForHumans)"))
        }
        if backoff.jitter != .full {
            warnings.append(InteropWarning(
                feature: "backoff.jitter", location: location("backoff.jitter", "backoff"),
                message: "\(target) waits a random time between 0 and the backoff (full jitter); the policy uses jitter \(backoff.jitter)"))
            // With other jitter every bound differs; the shape still says why.
            if case .exponential = backoff.growth { return warnings }
        }
        for k in 1...retries {
            let mine = backoffBounds(forRetry: k).upperBound
            let theirs = targetBound(k)
            guard mine != theirs else { continue }
            switch backoff.growth {
            case .exponential:
                warnings.append(InteropWarning(
                    feature: "backoff", location: location("backoff.multiplier", "backoff.initial", "backoff"),
                    message: "\(target) waits up to \(theirs.formattedForHumans) before retry \(k), the policy up to \(mine.formattedForHumans)"))
            case .linear(let step):
                warnings.append(InteropWarning(
                    feature: "backoff.shape", location: location("backoff.shape", "backoff"),
                    message: "\(target) has no linear backoff: it waits up to \(theirs.formattedForHumans) before retry \(k), the policy (linear, step \(step.formattedForHumans)) up to \(mine.formattedForHumans)"))
            case .custom(let custom):
                warnings.append(InteropWarning(
                    feature: "backoff", location: location("backoff"),
                    message: "\(target) has no backoff defined in code: it waits up to \(theirs.formattedForHumans) before retry \(k), the policy (\(custom.name)) up to \(mine.formattedForHumans)"))
            }
            break
        }
        return warnings
    }
}
