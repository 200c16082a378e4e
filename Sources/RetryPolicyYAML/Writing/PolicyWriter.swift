import RetryPolicyCore

/// Writes a policy as a policy file that loads back to the same policy
/// (locations aside): a policy built in code can be reviewed, linted,
/// diffed and shipped as data.
///
/// ```swift
/// let text = try PolicyWriter.yaml(policy)
/// try PolicyLoader().loadPolicy(yaml: text, path: "api.yaml") == policy  // locations aside
/// ```
public enum PolicyWriter {
    /// The file text of `policy`.
    ///
    /// - Throws: the problems `Policy.validated()` finds,
    ///   and a backoff defined in code, which has no file form.
    public static func yaml(_ policy: Policy) throws(PolicyValidationError) -> String {
        var problems = policy.problems
        if case .custom(let custom) = policy.backoff.growth {
            problems.append(
                PolicyProblem(
                    id: "RP013", keyPath: "backoff",
                    message: "a backoff defined in code ('\(custom.name)') has no file form",
                    suggestion: "use shape exponential or linear in a policy file"))
        }
        if !problems.isEmpty { throw PolicyValidationError(policy: policy.name, problems: problems) }
        var out = Output()
        out.line("version: 1")
        out.line("name: \(quoted(policy.name))")
        if let description = policy.description { out.line("description: \(quoted(description))") }
        if let platform = policy.platform { out.line("platform: \(platform)") }
        out.line("attempts: \(policy.attempts)")
        idempotency(policy.idempotency, &out)
        backoff(policy.backoff, &out)
        retryAfter(policy.retryAfter, &out)
        if let block = timeouts(policy.timeouts) { out.line("timeouts: \(block)") }
        if !policy.endpoints.isEmpty {
            out.line("endpoints:")
            for name in policy.endpoints.keys.sorted() {
                out.line("  \(quoted(name)): \(timeouts(policy.endpoints[name]!) ?? "{}")")
            }
        }
        if let budget = policy.budget { self.budget(budget, &out) }
        if let breaker = policy.breaker { self.breaker(breaker, &out) }
        if let hedging = policy.hedging {
            var fields = ["delay: \(duration(hedging.delay))"]
            if let methods = hedging.methods { fields.append("methods: \(list(methods.sorted().map(\.rawValue)))") }
            out.line("hedging: {\(fields.joined(separator: ", "))}")
        }
        if !policy.conditions.isEmpty { out.line("conditions: \(list(policy.conditions.map(\.rawValue)))") }
        if !policy.rules.isEmpty {
            out.line("rules:")
            for rule in policy.rules { out.line("  - \(self.rule(rule))") }
        }
        if let defaultRule = policy.defaultRule {
            out.line("default: {error: \(defaultRule.error.rawValue), action: \(defaultRule.action.rawValue)}")
        }
        errors(policy, &out)
        if !policy.parity.isEmpty { out.line("parity: \(list(policy.parity.map(quoted)))") }
        return out.text
    }

    private struct Output {
        var text = ""
        mutating func line(_ line: String) { text += line + "\n" }
    }

    private static func idempotency(_ idempotency: Idempotency, _ out: inout Output) {
        let standard = Idempotency()
        guard idempotency.isExplicit || idempotency.retryableMethods != standard.retryableMethods
            || idempotency.honorIdempotentRequests != standard.honorIdempotentRequests
        else { return }
        out.line("idempotency:")
        out.line("  methods: \(list(idempotency.retryableMethods.sorted().map(\.rawValue)))")
        out.line("  honor_idempotent_requests: \(idempotency.honorIdempotentRequests)")
    }

    private static func backoff(_ backoff: Backoff, _ out: inout Output) {
        out.line("backoff:")
        switch backoff.growth {
        case .linear(let step):
            out.line("  shape: linear")
            out.line("  step: \(duration(step))")
        case .exponential(let multiplier):
            out.line("  multiplier: \(number(multiplier))")
        case .custom:
            break  // refused above
        }
        out.line("  initial: \(duration(backoff.initial))")
        // A file's `max` defaults to `initial`; an open cap is the ceiling.
        out.line("  max: \(duration(backoff.max ?? Backoff.ceiling))")
        if backoff.min > .zero { out.line("  min: \(duration(backoff.min))") }
        out.line("  jitter: \(backoff.jitter.rawValue)")
    }

    private static func retryAfter(_ retryAfter: RetryAfterPolicy, _ out: inout Output) {
        out.line("retry_after:")
        out.line("  honor: \(retryAfter.honor)")
        if let cap = retryAfter.cap { out.line("  cap: \(duration(cap))") }
        out.line("  above_cap: \(retryAfter.aboveCap.rawValue)")
        out.line("  combine: \(retryAfter.combine.rawValue)")
        out.line("  cooldown: \(retryAfter.cooldown.rawValue)")
        let headers = retryAfter.headers.map { "{name: \(quoted($0.name)), format: \($0.format.rawValue)}" }
        out.line("  headers: \(list(headers))")
    }

    private static func timeouts(_ budget: TimeoutBudget) -> String? {
        var fields: [String] = []
        if let perAttempt = budget.perAttempt { fields.append("per_attempt: \(duration(perAttempt))") }
        if let total = budget.total { fields.append("total: \(duration(total))") }
        return fields.isEmpty ? nil : "{\(fields.joined(separator: ", "))}"
    }

    private static func budget(_ budget: RetryBudgetConfiguration, _ out: inout Output) {
        out.line("budget:")
        switch budget.style {
        case .grpc:
            out.line("  preset: grpc")
            out.line("  max_tokens: \(budget.maxTokens)")
            out.line("  token_ratio: \(NumberText.decimal(Int64(budget.successRefund), fractionDigits: 3))")
        case .tokenBucket:
            if let preset = budget.preset { out.line("  preset: \(preset)") }
            out.line("  capacity: \(budget.capacity)")
            out.line("  retry_cost: \(budget.retryCost)")
            out.line("  timeout_retry_cost: \(budget.timeoutRetryCost)")
            out.line("  throttling_retry_cost: \(budget.throttlingRetryCost)")
            out.line("  throttling_errors: \(list(budget.throttlingErrors.sorted().map(\.rawValue)))")
            out.line("  success_refund: \(budget.successRefund)")
        }
    }

    private static func breaker(_ breaker: CircuitBreakerConfiguration, _ out: inout Output) {
        out.line("breaker:")
        switch breaker.sampling {
        case .count(let calls): out.line("  window: \(calls)")
        case .time(let length): out.line("  window: \(duration(length))")
        }
        out.line("  failure_ratio: \(number(breaker.failureRatio))")
        out.line("  minimum_calls: \(breaker.minimumCalls)")
        if let consecutive = breaker.consecutiveFailures { out.line("  consecutive_failures: \(consecutive)") }
        out.line("  break: \(duration(breaker.breakDuration))")
        out.line("  break_multiplier: \(number(breaker.breakMultiplier))")
        if let maxBreak = breaker.maxBreak { out.line("  max_break: \(duration(maxBreak))") }
        out.line("  half_open_probes: \(breaker.halfOpenProbes)")
        let failures = breaker.failures
        if !failures.isRetried {
            var fields: [String] = []
            if !failures.rules.isEmpty { fields.append("rules: \(list(failures.rules.map { String($0 + 1) }))") }
            if !failures.errors.isEmpty { fields.append("errors: \(list(failures.errors.sorted().map(\.rawValue)))") }
            if !failures.statuses.isEmpty { fields.append("statuses: \(list(failures.statuses.map(status)))") }
            out.line("  failures: {\(fields.joined(separator: ", "))}")
        }
        out.line("  error: \(breaker.error.rawValue)")
    }

    private static func rule(_ rule: Rule) -> String {
        var fields: [String] = []
        if !rule.statuses.isEmpty { fields.append("status: \(list(rule.statuses.map(status)))") }
        if !rule.transports.isEmpty { fields.append("transport: \(list(rule.transports.sorted().map(\.rawValue)))") }
        if !rule.conditions.isEmpty { fields.append("condition: \(list(rule.conditions.sorted().map(\.rawValue)))") }
        if let methods = rule.methods { fields.append("methods: \(list(methods.sorted().map(\.rawValue)))") }
        if let error = rule.error { fields.append("error: \(error.rawValue)") }
        fields.append("action: \(rule.action.rawValue)")
        if let honor = rule.honorRetryAfter { fields.append("honor_retry_after: \(honor)") }
        if rule.refreshCredentials { fields.append("refresh_credentials: true") }
        return "{\(fields.joined(separator: ", "))}"
    }

    /// `errors`: every declared kind, with its platform names if any.
    private static func errors(_ policy: Policy, _ out: inout Output) {
        let named = policy.errorNames.names.values.flatMap(\.keys)
        var kinds = policy.declaredErrors
        for kind in Set(named).sorted() where !kinds.contains(kind) { kinds.append(kind) }
        guard !kinds.isEmpty else { return }
        out.line("errors:")
        for kind in kinds {
            let names = policy.errorNames.platforms.compactMap { platform in
                policy.errorNames.name(of: kind, on: platform).map { "\(platform): \(quoted($0))" }
            }
            out.line("  \(kind.rawValue):" + (names.isEmpty ? "" : " {\(names.joined(separator: ", "))}"))
        }
    }

    // MARK: Scalars

    private static func status(_ pattern: StatusPattern) -> String {
        if case .code(let code) = pattern { return String(code) }
        return "\"\(pattern)\""
    }

    private static func list(_ items: [String]) -> String { "[\(items.joined(separator: ", "))]" }

    /// Exact: whole milliseconds in the shortest spelling, anything finer
    /// as seconds with nine decimals.
    private static func duration(_ duration: Duration) -> String {
        let nanoseconds = duration.nanosecondsSaturated
        if nanoseconds % 1_000_000 == 0 { return DurationText.format(duration) }
        return NumberText.decimal(nanoseconds, fractionDigits: 9) + "s"
    }

    /// The shortest decimal that reads back as the same `Double`.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    static func quoted(_ text: String) -> String { QuotedText.doubleQuoted(text) }
}
