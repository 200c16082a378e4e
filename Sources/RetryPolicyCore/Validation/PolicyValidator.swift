/// One thing wrong with a policy, at a key path (`attempts`,
/// `rules[2].error`, `backoff.min`), with the loader's rule id.
///
/// A policy built in code has no file to point into; the key path says
/// where the problem is, and the id and the message are the ones a file
/// with the same mistake gets.
public struct PolicyProblem: Hashable, Sendable, CustomStringConvertible {
    /// The loader's rule id (`RP019`...), stable across releases.
    public var id: String
    /// Where the problem is: a key path in the policy's file form.
    public var keyPath: String
    /// What was expected, and what was found.
    public var message: String
    /// A likely fix.
    public var suggestion: String?
    /// What a valid value is (`an integer from 1 to 100`), for a problem
    /// with one value: a loader says what the file holds instead of the
    /// value as the model holds it (`found the integer 0`).
    public var expected: String?

    public init(id: String, keyPath: String, message: String, suggestion: String? = nil, expected: String? = nil) {
        self.id = id
        self.keyPath = keyPath
        self.message = message
        self.suggestion = suggestion
        self.expected = expected
    }

    /// `rules[2].error: expected ..., found ... [RP016] (suggestion)`.
    public var description: String {
        var text = keyPath.isEmpty ? message : "\(keyPath): \(message)"
        text += " [\(id)]"
        if let suggestion { text += " (\(suggestion))" }
        return text
    }
}

/// The problems of a policy that must not run, every one of them.
public struct PolicyValidationError: Error, Sendable, CustomStringConvertible {
    public var policy: String
    public var problems: [PolicyProblem]

    public init(policy: String, problems: [PolicyProblem]) {
        self.policy = policy
        self.problems = problems
    }

    public var description: String {
        (["policy '\(policy)' is not valid:"] + problems.map { "  \($0)" }).joined(separator: "\n")
    }
}

extension Policy {
    /// The policy, if nothing about it would make the loader refuse its
    /// file; otherwise every problem, each at its key path.
    ///
    /// ```swift
    /// let policy = try Policy(name: "api", attempts: 4, backoff: backoff, rules: rules).validated()
    /// ```
    public func validated() throws(PolicyValidationError) -> Policy {
        let problems = PolicyValidator.problems(of: self)
        if !problems.isEmpty { throw PolicyValidationError(policy: name, problems: problems) }
        return self
    }

    /// Every problem ``validated()`` would throw; empty for a valid policy.
    public var problems: [PolicyProblem] { PolicyValidator.problems(of: self) }
}

/// What makes a policy meaningless or unsafe to run, checked on the model:
/// the one list of such checks for policies from files and from code.
///
/// The loader reports a file's problems at their lines as it reads them
/// and then asks the validator about the whole policy, so that a check
/// that only the model can make (across keys, or after `extends`) holds
/// for files too; ``Policy/validated()`` asks it about a policy built in
/// code.
package enum PolicyValidator {
    package static func problems(of policy: Policy) -> [PolicyProblem] {
        var check = Checks()
        check.header(policy)
        check.backoff(policy.backoff)
        check.retryAfter(policy.retryAfter)
        check.timeouts(policy.timeouts, at: "timeouts")
        for endpoint in policy.endpoints.keys.sorted() {
            let keyPath = "endpoints.\(endpoint)"
            if endpoint.isEmpty { check.add("RP013", "endpoints", "expected an endpoint name, found an empty key") }
            check.timeouts(policy.endpoints[endpoint]!, at: keyPath)
        }
        let known = Set(SDKError.Kind.standard).union(policy.declaredErrors)
            .union(policy.errorNames.names.values.flatMap(\.keys))
        check.declarations(policy)
        if let budget = policy.budget { check.budget(budget, known: known) }
        for (index, rule) in policy.rules.enumerated() {
            check.rule(rule, at: "rules[\(index)]", known: known, conditions: Set(policy.conditions))
        }
        if let defaultRule = policy.defaultRule {
            check.errorKind(defaultRule.error, at: "default.error", known: known)
        }
        if let breaker = policy.breaker { check.breaker(breaker, ruleCount: policy.rules.count, known: known) }
        if let rateLimit = policy.rateLimit { check.rateLimit(rateLimit, known: known) }
        if let hedging = policy.hedging {
            check.positive(hedging.delay, at: "hedging.delay")
            if let methods = hedging.methods, methods.isEmpty {
                check.add("RP019", "hedging.methods", "expected a list of HTTP methods with at least one item, found an empty list")
            }
        }
        return check.problems
    }

    private struct Checks {
        var problems: [PolicyProblem] = []

        mutating func add(_ id: String, _ keyPath: String, _ message: String, suggestion: String? = nil, expected: String? = nil) {
            problems.append(PolicyProblem(id: id, keyPath: keyPath, message: message, suggestion: suggestion, expected: expected))
        }

        mutating func header(_ policy: Policy) {
            if !PolicyBounds.isName(policy.name) {
                add("RP013", "name", "expected a name of 1 to 128 letters, digits, '.', '_' or '-', found '\(policy.name)'")
            }
            if let platform = policy.platform, !PolicyBounds.isIdentifier(platform) {
                add("RP013", "platform", "expected a platform name in snake_case (a-z, 0-9, _), found '\(platform)'")
            }
            integer(policy.attempts, at: "attempts", in: PolicyBounds.attempts)
        }

        mutating func integer(_ value: Int, at keyPath: String, in range: ClosedRange<Int>) {
            if !range.contains(value) {
                let expected = PolicyBounds.describe(range)
                add("RP019", keyPath, "expected \(expected), found \(value)", expected: expected)
            }
        }

        mutating func number(_ value: Double, at keyPath: String, in range: ClosedRange<Double>) {
            if !(value.isFinite && range.contains(value)) {
                let expected = PolicyBounds.describe(range)
                add("RP019", keyPath, "expected \(expected), found \(value)", expected: expected)
            }
        }

        /// A duration a file could state: not negative, at most 100 days.
        mutating func duration(_ value: Duration, at keyPath: String) {
            if value < .zero {
                add("RP014", keyPath, "expected a duration of zero or more, found \(value)")
            } else if value > DurationText.maximum {
                add("RP014", keyPath, "expected a duration of at most 100 days, found \(value)")
            }
        }

        mutating func positive(_ value: Duration, at keyPath: String) {
            if value <= .zero {
                add("RP014", keyPath, "expected a duration above zero, found \(value)")
            } else {
                duration(value, at: keyPath)
            }
        }

        mutating func backoff(_ backoff: Backoff) {
            duration(backoff.initial, at: "backoff.initial")
            duration(backoff.min, at: "backoff.min")
            if let max = backoff.max {
                duration(max, at: "backoff.max")
                if backoff.min > max {
                    add("RP019", "backoff.min", "expected at most backoff.max (\(max.formattedForHumans)), found \(backoff.min.formattedForHumans)",
                        suggestion: "the floor is applied after the cap; lower 'min' or raise 'max'")
                }
            }
            // The shape's parameter against the range its file form admits.
            if let (shape, value) = backoff.growth.fileForm {
                let keyPath = "backoff.\(shape.parameter.key)"
                switch (shape.parameter.values, value) {
                case (.number(let range), .number(let number)): self.number(number, at: keyPath, in: range)
                case (.duration, .duration(let duration)): self.duration(duration, at: keyPath)
                default: break  // each shape's value is of its parameter's kind (BackoffShapeTests)
                }
            }
        }

        mutating func retryAfter(_ retryAfter: RetryAfterPolicy) {
            if let cap = retryAfter.cap { duration(cap, at: "retry_after.cap") }
            for (index, header) in retryAfter.headers.enumerated() where !HTTPToken.isValid(header.name) {
                add("RP013", "retry_after.headers[\(index)].name",
                    "expected a header name (letters, digits and !#$%&'*+-.^_`|~), found '\(header.name)'")
            }
        }

        mutating func timeouts(_ budget: TimeoutBudget, at keyPath: String) {
            if let perAttempt = budget.perAttempt { positive(perAttempt, at: "\(keyPath).per_attempt") }
            if let total = budget.total { positive(total, at: "\(keyPath).total") }
        }

        /// `errors` and `conditions`: snake_case names, each declared once.
        mutating func declarations(_ policy: Policy) {
            var seen = Set<AttemptCondition>()
            for condition in policy.conditions {
                if !PolicyBounds.isIdentifier(condition.rawValue) {
                    add("RP013", "conditions", "expected a condition name in snake_case (a-z, 0-9, _), found '\(condition)'")
                } else if !seen.insert(condition).inserted {
                    add("RP013", "conditions", "'\(condition)' is declared twice", suggestion: "remove the second '\(condition)'")
                }
            }
            for kind in policy.declaredErrors where !PolicyBounds.isIdentifier(kind.rawValue) {
                add("RP013", "errors", "expected an error kind in snake_case (a-z, 0-9, _), found '\(kind)'")
            }
        }

        mutating func errorKind(_ kind: SDKError.Kind, at keyPath: String, known: Set<SDKError.Kind>) {
            if !known.contains(kind) {
                add("RP016", keyPath, "expected a standard error kind or one declared under 'errors', found '\(kind)'",
                    suggestion: "declare it under 'errors' or use one of \(SDKError.Kind.standard.map(\.rawValue).joined(separator: ", "))")
            }
        }

        mutating func rule(_ rule: Rule, at keyPath: String, known: Set<SDKError.Kind>, conditions: Set<AttemptCondition>) {
            if rule.statuses.isEmpty && rule.transports.isEmpty && rule.conditions.isEmpty && rule.grpc.isEmpty {
                add("RP023", keyPath, "expected 'status', 'transport', 'condition' or 'grpc', found none",
                    suggestion: "a rule without conditions matches nothing; use 'default' for unmatched inputs")
            }
            for pattern in rule.statuses {
                let codes = pattern.codes
                if codes.isEmpty {
                    add("RP015", "\(keyPath).status", "expected a range whose first code is not above its last, found \(pattern)")
                } else if !StatusPattern.validCodes.contains(codes.lowerBound) || !StatusPattern.validCodes.contains(codes.upperBound) {
                    add("RP015", "\(keyPath).status", "expected a status code from 100 to 599, found \(pattern)")
                }
            }
            if let methods = rule.methods, methods.isEmpty {
                add("RP019", "\(keyPath).methods", "expected a list of HTTP methods with at least one item, found an empty list")
            }
            for condition in rule.conditions.sorted() where !conditions.contains(condition) {
                add("RP027", "\(keyPath).condition", "expected a condition declared under 'conditions', found '\(condition)'",
                    suggestion: "declare it: conditions: [\(condition)]")
            }
            if let error = rule.error {
                errorKind(error, at: "\(keyPath).error", known: known)
            } else if rule.action != .success {
                add("RP012", keyPath, "missing required key 'error' (a \(rule.action) rule reports an error kind)")
            }
        }

        mutating func budget(_ budget: RetryBudgetConfiguration, known: Set<SDKError.Kind>) {
            if let preset = budget.preset, !RetryBudgetConfiguration.presetNames.contains(preset) {
                let names = RetryBudgetConfiguration.presetNames
                add("RP013", "budget.preset",
                    "expected \(names.dropLast().joined(separator: ", ")) or \(names.last ?? ""), found '\(preset)'")
            }
            switch budget.rules {
            case .tokenBucket(let bucket):
                integer(bucket.capacity, at: "budget.capacity", in: PolicyBounds.budgetCapacity)
                integer(bucket.retryCost, at: "budget.retry_cost", in: PolicyBounds.budgetAmount)
                integer(bucket.timeoutRetryCost, at: "budget.timeout_retry_cost", in: PolicyBounds.budgetAmount)
                integer(bucket.throttlingRetryCost, at: "budget.throttling_retry_cost", in: PolicyBounds.budgetAmount)
                integer(bucket.successRefund, at: "budget.success_refund", in: PolicyBounds.budgetAmount)
                for kind in bucket.throttlingErrors.sorted() {
                    errorKind(kind, at: "budget.throttling_errors", known: known)
                }
            case .grpc(let throttling):
                integer(throttling.maxTokens, at: "budget.max_tokens", in: PolicyBounds.grpcMaxTokens)
                if throttling.tokenRatio <= 0 || throttling.tokenRatio > 1_000_000 {
                    add("RP019", "budget.token_ratio",
                        "expected a number above 0 and at most 1000, found \(NumberText.number(Double(throttling.tokenRatio) / 1000))")
                }
            case .ratio(let ratio):
                if !PolicyBounds.ratioPermille.contains(ratio.permille) {
                    add("RP019", "budget.retry_percent",
                        "expected a percentage from 0 to 1000, found \(NumberText.number(Double(ratio.permille) / 10))",
                        expected: "a percentage from 0 to 1000")
                }
                integer(ratio.minRetriesPerSecond, at: "budget.min_retries_per_second", in: PolicyBounds.ratioMinRetriesPerSecond)
                if !PolicyBounds.ratioWindow.contains(ratio.window) {
                    add("RP014", "budget.window", "expected a duration from 1s to 60s, found \(ratio.window.formattedForHumans)")
                }
            }
        }

        /// A number above 0 and at most `upper` (a finite one).
        mutating func aboveZero(_ value: Double, at keyPath: String, atMost upper: Double) {
            if !(value.isFinite && value > 0 && value <= upper) {
                let expected = "a number above 0 and at most \(NumberText.number(upper))"
                add("RP019", keyPath, "expected \(expected), found \(value)", expected: expected)
            }
        }

        mutating func rateLimit(_ limit: AdaptiveRateLimit, known: Set<SDKError.Kind>) {
            typealias Bounds = PolicyBounds.RateLimit
            aboveZero(limit.beta, at: "rate_limit.beta", atMost: Bounds.beta.upperBound)
            aboveZero(limit.scaleConstant, at: "rate_limit.scale_constant", atMost: Bounds.scaleConstant.upperBound)
            aboveZero(limit.smoothing, at: "rate_limit.smoothing", atMost: Bounds.smoothing.upperBound)
            positive(limit.measurementInterval, at: "rate_limit.measurement_interval")
            aboveZero(limit.minimumRate, at: "rate_limit.min_rate", atMost: Bounds.minimumRate.upperBound)
            number(limit.maximumRateScale, at: "rate_limit.max_rate_scale", in: Bounds.maximumRateScale)
            if let maximumWait = limit.maximumWait { positive(maximumWait, at: "rate_limit.max_wait") }
            if limit.throttlingErrors.isEmpty {
                add("RP019", "rate_limit.throttling_errors", "expected a list of error kinds with at least one item, found an empty list",
                    suggestion: "without throttling errors the limiter never turns on; remove rate_limit instead")
            }
            for kind in limit.throttlingErrors.sorted() {
                errorKind(kind, at: "rate_limit.throttling_errors", known: known)
            }
        }

        mutating func breaker(_ breaker: CircuitBreakerConfiguration, ruleCount: Int, known: Set<SDKError.Kind>) {
            switch breaker.sampling {
            case .count(let calls): integer(calls, at: "breaker.window", in: PolicyBounds.Breaker.calls)
            case .time(let length): positive(length, at: "breaker.window")
            }
            number(breaker.failureRatio, at: "breaker.failure_ratio", in: PolicyBounds.Breaker.ratio)
            integer(breaker.minimumCalls, at: "breaker.minimum_calls", in: PolicyBounds.Breaker.calls)
            if let consecutive = breaker.consecutiveFailures {
                integer(consecutive, at: "breaker.consecutive_failures", in: PolicyBounds.Breaker.calls)
            }
            positive(breaker.breakDuration, at: "breaker.break")
            number(breaker.breakMultiplier, at: "breaker.break_multiplier", in: PolicyBounds.Breaker.multiplier)
            if let maxBreak = breaker.maxBreak {
                positive(maxBreak, at: "breaker.max_break")
                if maxBreak < breaker.breakDuration {
                    add("RP019", "breaker.max_break", "expected at least breaker.break (\(breaker.breakDuration)), found \(maxBreak)")
                }
            }
            integer(breaker.halfOpenProbes, at: "breaker.half_open_probes", in: PolicyBounds.Breaker.probes)
            errorKind(breaker.error, at: "breaker.error", known: known)
            for rule in breaker.failures.rules where !(0..<ruleCount).contains(rule) {
                add("RP019", "breaker.failures.rules", "expected a rule number from 1 to \(ruleCount), found \(rule + 1)")
            }
            for kind in breaker.failures.errors.sorted() {
                errorKind(kind, at: "breaker.failures.errors", known: known)
            }
        }
    }
}
