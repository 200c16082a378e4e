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
    /// The file text of `policy`, with `comments` written as `#` lines
    /// before the top-level key they are filed under (`attempts`,
    /// `backoff`, `rules`...; `""` is the file's header). A comment is one
    /// line whatever its text: line breaks, control and bidirectional
    /// characters in it are written as visible `\u{..}` escapes, so that
    /// text quoted from another file can never become YAML.
    ///
    /// - Throws: the problems `Policy.validated()` finds,
    ///   and a backoff defined in code, which has no file form.
    public static func yaml(_ policy: Policy, comments: [String: [String]] = [:]) throws(PolicyValidationError) -> String {
        var problems = policy.problems
        if case .custom(let custom) = policy.backoff.growth {
            problems.append(
                PolicyProblem(
                    id: "RP013", keyPath: "backoff",
                    message: "a backoff defined in code ('\(custom.name)') has no file form",
                    suggestion: "use shape \(FieldReader.alternatives(Backoff.Growth.named.compactMap(\.name))) in a policy file"))
        }
        if !problems.isEmpty { throw PolicyValidationError(policy: policy.name, problems: problems) }
        var out = Output(comments: comments)
        out.comments(before: "")
        // Comments filed under a key this writer does not know stay in
        // the header rather than being lost.
        for key in comments.keys.sorted() where !topLevelKeys.contains(key) { out.comments(before: key) }
        out.line("version: 1")
        out.line("name: \(name(policy.name))")
        if let description = policy.description { out.line("description: \(quoted(description))") }
        if let platform = policy.platform { out.line("platform: \(platform)") }
        out.comments(before: "attempts")
        out.line("attempts: \(policy.attempts)")
        out.comments(before: "idempotency")
        idempotency(policy.idempotency, &out)
        out.comments(before: "backoff")
        backoff(policy.backoff, &out)
        out.comments(before: "retry_after")
        retryAfter(policy.retryAfter, &out)
        out.comments(before: "timeouts")
        if let block = timeouts(policy.timeouts) { out.line("timeouts: \(block)") }
        out.comments(before: "endpoints")
        if !policy.endpoints.isEmpty {
            out.line("endpoints:")
            for name in policy.endpoints.keys.sorted() {
                out.line("  \(quoted(name)): \(timeouts(policy.endpoints[name]!) ?? "{}")")
            }
        }
        out.comments(before: "budget")
        if let budget = policy.budget { self.budget(budget, &out) }
        out.comments(before: "breaker")
        if let breaker = policy.breaker { self.breaker(breaker, &out) }
        out.comments(before: "hedging")
        if let hedging = policy.hedging {
            var fields = ["delay: \(duration(hedging.delay))"]
            if let methods = hedging.methods { fields.append("methods: \(list(methods.sorted().map(\.rawValue)))") }
            out.line("hedging: {\(fields.joined(separator: ", "))}")
        }
        out.comments(before: "rate_limit")
        if let rateLimit = policy.rateLimit { self.rateLimit(rateLimit, &out) }
        out.comments(before: "conditions")
        if !policy.conditions.isEmpty { out.line("conditions: \(list(policy.conditions.map(\.rawValue)))") }
        out.comments(before: "rules")
        if !policy.rules.isEmpty {
            out.line("rules:")
            for rule in policy.rules { out.line("  - \(self.rule(rule))") }
        }
        out.comments(before: "default")
        if let defaultRule = policy.defaultRule {
            out.line("default: {error: \(defaultRule.error.rawValue), action: \(defaultRule.action.rawValue)}")
        }
        out.comments(before: "errors")
        errors(policy, &out)
        out.comments(before: "parity")
        if !policy.parity.isEmpty { out.line("parity: \(list(policy.parity.map(quoted)))") }
        return out.text
    }

    /// The keys comments can be filed under (`""`: the header).
    static let topLevelKeys: Set<String> = [
        "", "attempts", "idempotency", "backoff", "retry_after", "timeouts", "endpoints", "budget", "breaker", "hedging",
        "rate_limit", "conditions", "rules", "default", "errors", "parity",
    ]

    private struct Output {
        var text = ""
        let comments: [String: [String]]

        mutating func line(_ line: String) { text += line + "\n" }

        mutating func comments(before key: String) {
            for comment in comments[key] ?? [] { line("# " + PolicyWriter.commentText(comment)) }
        }
    }

    /// `text` as the text of one comment line: every character that would
    /// end the line or that a policy file may not hold (line breaks of any
    /// kind, control characters), and the bidirectional controls that
    /// would show a reviewer the comment in another order, as a visible
    /// `\u{..}` escape. Which characters those are is `DisplayText`'s one
    /// list.
    package static func commentText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { DisplayText.isUnsafe($0) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if DisplayText.isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
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
        // The default shape goes without saying, as in a file written by hand.
        if let name = backoff.growth.name, name != Backoff.Growth.named.first?.name { out.line("  shape: \(name)") }
        if let parameter = backoff.growth.parameter {
            switch parameter.value {
            case .number(let value): out.line("  \(parameter.key): \(number(value))")
            case .duration(let value): out.line("  \(parameter.key): \(duration(value))")
            }
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
        switch budget.rules {
        case .grpc(let throttling):
            out.line("  preset: grpc")
            out.line("  max_tokens: \(throttling.maxTokens)")
            out.line("  token_ratio: \(NumberText.decimal(Int64(throttling.tokenRatio), fractionDigits: 3))")
        case .ratio(let ratio):
            if let preset = budget.preset { out.line("  preset: \(preset)") }
            out.line("  retry_percent: \(NumberText.decimal(Int64(ratio.permille), fractionDigits: 1))")
            out.line("  min_retries_per_second: \(ratio.minRetriesPerSecond)")
            out.line("  window: \(duration(ratio.window))")
        case .tokenBucket(let bucket):
            if let preset = budget.preset { out.line("  preset: \(preset)") }
            out.line("  capacity: \(bucket.capacity)")
            out.line("  retry_cost: \(bucket.retryCost)")
            out.line("  timeout_retry_cost: \(bucket.timeoutRetryCost)")
            out.line("  throttling_retry_cost: \(bucket.throttlingRetryCost)")
            out.line("  throttling_errors: \(list(bucket.throttlingErrors.sorted().map(\.rawValue)))")
            out.line("  success_refund: \(bucket.successRefund)")
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

    /// `rate_limit: adaptive` for botocore's numbers, otherwise every one.
    private static func rateLimit(_ limit: AdaptiveRateLimit, _ out: inout Output) {
        if limit == .aws {
            out.line("rate_limit: adaptive")
            return
        }
        out.line("rate_limit:")
        out.line("  mode: adaptive")
        out.line("  beta: \(number(limit.beta))")
        out.line("  scale_constant: \(number(limit.scaleConstant))")
        out.line("  smoothing: \(number(limit.smoothing))")
        out.line("  measurement_interval: \(duration(limit.measurementInterval))")
        out.line("  min_rate: \(number(limit.minimumRate))")
        out.line("  max_rate_scale: \(number(limit.maximumRateScale))")
        if let maximumWait = limit.maximumWait { out.line("  max_wait: \(duration(maximumWait))") }
        out.line("  throttling_errors: \(list(limit.throttlingErrors.sorted().map(\.rawValue)))")
    }

    private static func rule(_ rule: Rule) -> String {
        var fields: [String] = []
        if !rule.statuses.isEmpty { fields.append("status: \(list(rule.statuses.map(status)))") }
        if !rule.transports.isEmpty { fields.append("transport: \(list(rule.transports.sorted().map(\.rawValue)))") }
        if !rule.conditions.isEmpty { fields.append("condition: \(list(rule.conditions.sorted().map(\.rawValue)))") }
        if !rule.grpc.isEmpty { fields.append("grpc: \(list(rule.grpc.sorted().map(\.name)))") }
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

    /// A policy name as written by hand, plain, where a plain scalar reads
    /// back as the same string (it starts with a letter and is no word
    /// YAML reads as a boolean or null); quoted otherwise (`"29"`, `".5"`,
    /// `"true"`).
    static func name(_ text: String) -> String {
        let plain = text.first.map { $0.isASCII && $0.isLetter } == true
            && !["true", "false", "null", "yes", "no", "on", "off", "y", "n"].contains(text.lowercased())
            && text.unicodeScalars.allSatisfy { $0.isASCII && !DisplayText.isUnsafe($0) && !": #,[]{}\"'".unicodeScalars.contains($0) }
        return plain ? text : quoted(text)
    }
}
