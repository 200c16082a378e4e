import RetryPolicyCore

/// Policy to an Envoy route's `RouteAction` fields: `timeout` and
/// `retry_policy` (config.route.v3.RetryPolicy).
public enum EnvoyExporter {
    /// Envoy's default `rate_limited_retry_back_off.max_interval`.
    package static let defaultRateLimitedMaxInterval: Duration = .seconds(300)

    public static func export(_ policy: Policy, file: String) -> ExportResult {
        let behaviour = PolicyBehaviour(policy: policy, file: file)
        var warnings = behaviour.commonWarnings(target: "Envoy")
        var retryPolicy: [InteropValue.Field] = []
        let retries = policy.attempts - 1
        if behaviour.retriesSomething {
            let (conditions, codes, conditionWarnings) = EnvoyConditions.conditions(for: behaviour, target: "Envoy")
            warnings += conditionWarnings
            retryPolicy.append(.init("retry_on", .string(conditions.joined(separator: ","))))
            retryPolicy.append(.init("num_retries", .int(retries)))
            if let perAttempt = policy.timeouts.perAttempt {
                retryPolicy.append(.init("per_try_timeout", .string(ForeignDuration.protoText(perAttempt))))
            }
            if !codes.isEmpty { retryPolicy.append(.init("retriable_status_codes", .array(codes.map(InteropValue.int)))) }
            let (backOff, backoffWarnings) = backOff(behaviour, retries: retries, target: "Envoy")
            warnings += backoffWarnings
            retryPolicy.append(.init("retry_back_off", backOff))
            let (rateLimited, rateWarnings) = rateLimitedBackOff(behaviour)
            warnings += rateWarnings
            if let rateLimited { retryPolicy.append(.init("rate_limited_retry_back_off", rateLimited)) }
        } else {
            retryPolicy.append(.init("num_retries", .int(0)))
        }
        if policy.budget != nil {
            warnings.append(budgetWarning(behaviour, target: "Envoy"))
        }
        if let warning = behaviour.breakerWarning(
            target: "Envoy", instead: "a cluster's outlier_detection ejects failing hosts; its circuit_breakers cap concurrent requests")
        {
            warnings.append(warning)
        }
        if let warning = behaviour.hedgingWarning(
            target: "Envoy", instead: "a route's hedge_policy sends another request only on a per-try timeout, with no delay of its own")
        {
            warnings.append(warning)
        }
        if let warning = behaviour.rateLimitWarning(target: "Envoy") { warnings.append(warning) }
        // No total in the policy: no deadline, which Envoy spells 0s. That
        // turns off Envoy's default 15s route timeout, which the reader of
        // the route may not expect: said where the export's losses are.
        let total = policy.timeouts.total ?? .zero
        if policy.timeouts.total == nil {
            warnings.append(InteropWarning(
                feature: "timeouts.total", location: behaviour.location("timeouts"),
                message: "the policy sets no total timeout, exported as timeout: 0s, which disables Envoy's default 15s route timeout; set timeouts.total to keep a deadline"))
        }
        let document: InteropValue = .object([
            .init("timeout", .string(ForeignDuration.protoText(total))),
            .init("retry_policy", .object(retryPolicy)),
        ])
        return ExportResult(format: .envoy, document: document, warnings: warnings)
    }

    static func budgetWarning(_ behaviour: PolicyBehaviour, target: String) -> InteropWarning {
        if let ratio = behaviour.policy.budget?.ratio { return ratioBudgetWarning(ratio, behaviour, target: target) }
        return InteropWarning(
            feature: "budget", location: behaviour.location("budget"),
            message: "\(target) has no token-bucket budget on a route; its retry budget is a cluster circuit breaker (retry_budget: budget_percent of active requests), not exported")
    }

    /// A ratio budget is the policy's form of Envoy's cluster retry
    /// budget, but Envoy's caps retries in flight (a concurrency) where
    /// the policy counts retries over a window (a rate): the cluster
    /// setting to write is named, with what it would change.
    static func ratioBudgetWarning(_ ratio: RatioRetryBudget, _ behaviour: PolicyBehaviour, target: String) -> InteropWarning {
        let percent = NumberText.decimal(Int64(ratio.permille), fractionDigits: 1)
        let setting = "the cluster's circuit_breakers.thresholds[].retry_budget {budget_percent: {value: \(percent)}, min_retry_concurrency: \(ratio.minRetriesPerSecond)}"
        return InteropWarning(
            feature: "budget", location: behaviour.location("budget.retry_percent", "budget.preset", "budget"),
            message: "\(target)'s retry budget is not a route setting; write \(setting) by hand. It caps retries in flight at \(percent) % of active requests (at least \(ratio.minRetriesPerSecond) at once), where the policy allows \(percent) % of the requests of the last \(ratio.window.formattedForHumans) plus \(ratio.minRetriesPerSecond) retries a second: the window and the rate are lost; not exported")
    }

    static func backOff(_ behaviour: PolicyBehaviour, retries: Int, target: String) -> (InteropValue, [InteropWarning]) {
        let policy = behaviour.policy
        var warnings: [InteropWarning] = []
        var base = policy.backoff.initial
        var maximum = policy.backoff.max ?? Backoff.ceiling
        if base < .milliseconds(1) {
            warnings.append(InteropWarning(
                feature: "backoff.initial", location: behaviour.location("backoff.initial", "backoff"),
                message: "\(target) requires base_interval of at least 1ms; the policy's \(base.formattedForHumans) is exported as 1ms"))
            base = .milliseconds(1)
        }
        if maximum < base {
            warnings.append(InteropWarning(
                feature: "backoff.max", location: behaviour.location("backoff.max", "backoff"),
                message: "\(target) requires max_interval at least base_interval; exported as \(base.formattedForHumans)"))
            maximum = base
        }
        warnings += behaviour.backoffWarnings(target: target, retries: retries) {
            EnvoyConditions.bound(base: base, max: maximum, retry: $0)
        }
        return (.object([
            .init("base_interval", .string(ForeignDuration.protoText(base))),
            .init("max_interval", .string(ForeignDuration.protoText(maximum))),
        ]), warnings)
    }

    static func rateLimitedBackOff(_ behaviour: PolicyBehaviour) -> (InteropValue?, [InteropWarning]) {
        let retryAfter = behaviour.policy.retryAfter
        var warnings: [InteropWarning] = []
        guard behaviour.honoursServerDelays else { return (nil, []) }
        let headersAt = behaviour.location("retry_after.headers", "retry_after")
        var resetHeaders: [InteropValue] = []
        for header in retryAfter.headers {
            let format: String
            switch header.format {
            case .seconds: format = "SECONDS"
            case .unixSeconds: format = "UNIX_TIMESTAMP"
            case .http:
                format = "SECONDS"
                warnings.append(InteropWarning(
                    feature: "retry_after.headers", location: headersAt,
                    message: "Envoy does not parse an HTTP-date in \(header.name); exported as SECONDS, so a date is ignored"))
            case .milliseconds:
                warnings.append(InteropWarning(
                    feature: "retry_after.headers", location: headersAt,
                    message: "Envoy's reset headers are SECONDS or UNIX_TIMESTAMP; \(header.name) (milliseconds) is not exported"))
                continue
            }
            resetHeaders.append(.object([.init("name", .string(header.name)), .init("format", .string(format))]))
        }
        guard !resetHeaders.isEmpty else { return (nil, warnings) }
        for index in behaviour.rulesOverridingRetryAfter {
            warnings.append(InteropWarning(
                feature: "honor_retry_after", location: behaviour.location("rules[\(index)].honor_retry_after", "rules[\(index)]"),
                message: "Envoy reads reset headers on every retried response; this rule's honor_retry_after is not exported"))
        }
        let maxInterval: Duration
        if let cap = retryAfter.cap {
            maxInterval = cap
        } else {
            maxInterval = EnvoyExporter.defaultRateLimitedMaxInterval
            warnings.append(InteropWarning(
                feature: "retry_after.cap", location: behaviour.location("retry_after"),
                message: "the policy accepts any server delay; Envoy discards delays above max_interval, exported as its default 300s"))
        }
        if retryAfter.aboveCap != .ignore {
            warnings.append(InteropWarning(
                feature: "retry_after.above_cap", location: behaviour.location("retry_after.above_cap", "retry_after"),
                message: "Envoy discards a delay above max_interval and falls back to its backoff (above_cap: ignore); the policy's above_cap is \(retryAfter.aboveCap)"))
        }
        warnings.append(InteropWarning(
            feature: "retry_after.combine", location: behaviour.location("retry_after.combine", "retry_after"),
            message: "Envoy waits a random time between the server's delay and 1.5 times it; the policy waits \(retryAfter.combine == .server ? "exactly the server's delay" : "the larger of it and the backoff")"))
        return (.object([
            .init("reset_headers", .array(resetHeaders)),
            .init("max_interval", .string(ForeignDuration.protoText(maxInterval))),
        ]), warnings)
    }
}
