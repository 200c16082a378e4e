import RetryPolicyCore

/// Policy to gRPC service config (gRFC A6 `retryPolicy`, `retryThrottling`).
public enum GRPCExporter {
    package static let maxAttemptsLimit = 5

    public static func export(_ policy: Policy, file: String) -> ExportResult {
        let behaviour = PolicyBehaviour(policy: policy, file: file)
        var warnings = behaviour.commonWarnings(target: "gRPC")
        var methodConfig: [InteropValue.Field] = [.init("name", .array([.object([])]))]
        if let total = policy.timeouts.total {
            methodConfig.append(.init("timeout", .string(ForeignDuration.protoText(total))))
        }
        if policy.timeouts.perAttempt != nil {
            warnings.append(InteropWarning(
                feature: "timeouts.per_attempt", location: behaviour.location("timeouts.per_attempt", "timeouts"),
                message: "gRPC retry policies have no per-attempt timeout; only the call's deadline (timeouts.total) is exported"))
        }

        if behaviour.retriesAnything {
            var attempts = policy.attempts
            if attempts > maxAttemptsLimit {
                warnings.append(InteropWarning(
                    feature: "attempts", location: behaviour.location("attempts"),
                    message: "gRPC treats maxAttempts above \(maxAttemptsLimit) as \(maxAttemptsLimit); the policy makes \(attempts) attempts"))
                attempts = maxAttemptsLimit
            }
            let codes: [GRPCStatusCode]
            if behaviour.policy.hasGRPCRules {
                codes = exactCodes(behaviour, warnings: &warnings)
            } else {
                codes = approximatedCodes(behaviour, warnings: &warnings)
            }
            if !codes.isEmpty {
                var initial = policy.backoff.initial
                var maximum = policy.backoff.max ?? Backoff.ceiling
                var multiplier = policy.backoff.multiplier
                if initial <= .zero {
                    warnings.append(InteropWarning(
                        feature: "backoff.initial", location: behaviour.location("backoff.initial", "backoff"),
                        message: "gRPC requires initialBackoff greater than zero; the policy retries at once, exported as 1ms"))
                    initial = .milliseconds(1)
                }
                if maximum <= .zero {
                    warnings.append(InteropWarning(
                        feature: "backoff.max", location: behaviour.location("backoff.max", "backoff"),
                        message: "gRPC requires maxBackoff greater than zero; exported as \(initial.formattedForHumans)"))
                    maximum = initial
                }
                if multiplier <= 0 {
                    warnings.append(InteropWarning(
                        feature: "backoff.multiplier", location: behaviour.location("backoff.multiplier", "backoff"),
                        message: "gRPC requires backoffMultiplier greater than zero; exported as 1"))
                    multiplier = 1
                }
                let exported = Backoff(initial: initial, max: maximum, multiplier: multiplier, jitter: .full)
                warnings += behaviour.backoffWarnings(target: "gRPC", retries: attempts - 1) {
                    exported.bounds(forRetry: $0, previousDelay: nil).upperBound
                }
                let retryPolicy: [InteropValue.Field] = [
                    .init("maxAttempts", .int(attempts)),
                    .init("initialBackoff", .string(ForeignDuration.protoText(initial))),
                    .init("maxBackoff", .string(ForeignDuration.protoText(maximum))),
                    .init("backoffMultiplier", .number(NumberText.number(multiplier))),
                    .init("retryableStatusCodes", .array(codes.map { .string($0.name) })),
                ]
                methodConfig.append(.init("retryPolicy", .object(retryPolicy)))
                warnings += serverDelayWarnings(behaviour)
            }
        }

        var document: [InteropValue.Field] = [.init("methodConfig", .array([.object(methodConfig)]))]
        if let budget = policy.budget {
            let (throttling, budgetWarnings) = throttling(budget, behaviour: behaviour)
            warnings += budgetWarnings
            if let throttling { document.append(.init("retryThrottling", throttling)) }
        }
        if let warning = behaviour.breakerWarning(target: "gRPC", instead: "retryThrottling stops retries, not calls") {
            warnings.append(warning)
        }
        if let warning = behaviour.hedgingWarning(
            target: "gRPC", instead: "a method config holds a retryPolicy or a hedgingPolicy, not both; the retryPolicy is exported")
        {
            warnings.append(warning)
        }
        if let warning = behaviour.rateLimitWarning(target: "gRPC") { warnings.append(warning) }
        return ExportResult(format: .grpc, document: .object(document), warnings: warnings)
    }

    /// `retryableStatusCodes` of a policy with `grpc` rules: the gRPC
    /// statuses it retries, exactly. Its HTTP status and transport rules
    /// have no place in a gRPC service config.
    static func exactCodes(_ behaviour: PolicyBehaviour, warnings: inout [InteropWarning]) -> [GRPCStatusCode] {
        let codes = GRPCStatusCode.allCases.filter { $0 != .ok && behaviour.retriedGRPC.contains($0) }
        if !behaviour.retriedStatuses.isEmpty || !behaviour.retriedTransports.isEmpty {
            var parts: [String] = []
            if !behaviour.retriedStatuses.isEmpty {
                parts.append("HTTP status " + ImportedPolicy.patterns(Array(behaviour.retriedStatuses)).map(\.description).joined(separator: ", "))
            }
            if !behaviour.retriedTransports.isEmpty {
                parts.append("transport " + behaviour.retriedTransports.sorted().map(\.rawValue).joined(separator: ", "))
            }
            warnings.append(InteropWarning(
                feature: "rules", location: behaviour.location("rules"),
                message: "a gRPC service config retries gRPC statuses only; the policy's retries of \(parts.joined(separator: " and ")) are not exported (its grpc rules are)"))
        }
        return codes
    }

    /// `retryableStatusCodes` of a policy with HTTP rules only, by the
    /// standard HTTP-to-gRPC mapping (grpc doc/http-grpc-status-mapping.md):
    /// a code is retried when one of its statuses or transport failures
    /// is. Which gRPC statuses the policy means is a guess, so a warning
    /// says so.
    static func approximatedCodes(_ behaviour: PolicyBehaviour, warnings: inout [InteropWarning]) -> [GRPCStatusCode] {
        var codes: [GRPCStatusCode] = []
        for code in GRPCStatusCode.allCases {
            let statuses = code.httpStatuses
            let transports = code.transports
            let retriedStatuses = statuses.intersection(behaviour.retriedStatuses)
            let retriedTransports = transports.intersection(behaviour.retriedTransports)
            guard !retriedStatuses.isEmpty || !retriedTransports.isEmpty else { continue }
            if code == .cancelled { continue }  // never retried: a cancelled call stops
            codes.append(code)
            let missingStatuses = statuses.subtracting(behaviour.retriedStatuses)
            let missingTransports = transports.subtracting(behaviour.retriedTransports)
            if !missingStatuses.isEmpty || !missingTransports.isEmpty {
                var parts: [String] = []
                if !missingStatuses.isEmpty { parts.append("status " + ImportedPolicy.patterns(Array(missingStatuses)).map(\.description).joined(separator: ", ")) }
                if !missingTransports.isEmpty { parts.append("transport " + missingTransports.sorted().map(\.rawValue).joined(separator: ", ")) }
                warnings.append(InteropWarning(
                    feature: "rules", location: behaviour.location("rules"),
                    message: "gRPC status \(code.name) also stands for \(parts.joined(separator: " and ")), which the policy does not retry; retrying \(code.name) retries them too"))
            }
        }
        let unmapped = behaviour.retriedTransports.filter { GRPCStatusCode.forTransport($0) == nil }
        if !unmapped.isEmpty {
            warnings.append(InteropWarning(
                feature: "rules", location: behaviour.location("rules"),
                message: "gRPC has no status for transport \(unmapped.sorted().map(\.rawValue).joined(separator: ", ")); not retried"))
        }
        let covered = codes.reduce(into: Set<Int>()) { $0.formUnion($1.httpStatuses) }
        let uncovered = behaviour.retriedStatuses.subtracting(covered)
        if !uncovered.isEmpty {
            warnings.append(InteropWarning(
                feature: "rules", location: behaviour.location("rules"),
                message: "gRPC has no status for HTTP \(ImportedPolicy.patterns(Array(uncovered)).map(\.description).joined(separator: ", ")); not retried"))
        }
        if !codes.isEmpty {
            warnings.append(InteropWarning(
                feature: "rules", location: behaviour.location("rules"),
                message: "the policy has no grpc rules: retryableStatusCodes \(codes.map(\.name).joined(separator: ", ")) is guessed from its HTTP statuses and transport failures by the standard HTTP-to-gRPC mapping, which is many-to-one, so which gRPC statuses it means is lost; write grpc rules to export them exactly"))
        }
        return codes
    }

    /// gRPC honours `grpc-retry-pushback-ms` exactly, with no cap, always.
    static func serverDelayWarnings(_ behaviour: PolicyBehaviour) -> [InteropWarning] {
        let retryAfter = behaviour.policy.retryAfter
        var warnings: [InteropWarning] = []
        let at = behaviour.location("retry_after.headers", "retry_after")
        if !behaviour.honoursServerDelays {
            warnings.append(InteropWarning(
                feature: "retry_after.honor", location: behaviour.location("retry_after.honor", "retry_after"),
                message: "gRPC always honours the server's grpc-retry-pushback-ms; the policy ignores server delays"))
            return warnings
        }
        // A policy with grpc rules reads the pushback from gRPC metadata
        // whatever headers it lists for HTTP responses.
        let headers = behaviour.policy.hasGRPCRules ? [] : retryAfter.headers
        for header in headers where !(header.name.lowercased() == pushbackHeader && header.format == .milliseconds) {
            warnings.append(InteropWarning(
                feature: "retry_after.headers", location: at,
                message: "gRPC reads only the grpc-retry-pushback-ms trailer (milliseconds), not \(header.name) (\(header.format))"))
        }
        if let cap = retryAfter.cap {
            warnings.append(InteropWarning(
                feature: "retry_after.cap", location: behaviour.location("retry_after.cap", "retry_after"),
                message: "gRPC has no cap on the server's pushback; cap \(cap.formattedForHumans) is not exported"))
        }
        if retryAfter.combine != .server {
            warnings.append(InteropWarning(
                feature: "retry_after.combine", location: behaviour.location("retry_after.combine", "retry_after"),
                message: "gRPC waits exactly the server's pushback (combine: server); the policy takes the larger of it and the backoff"))
        }
        for index in behaviour.rulesOverridingRetryAfter {
            warnings.append(InteropWarning(
                feature: "honor_retry_after", location: behaviour.location("rules[\(index)].honor_retry_after", "rules[\(index)]"),
                message: "gRPC honours pushback for every status; this rule's honor_retry_after is not exported"))
        }
        return warnings
    }

    static let pushbackHeader = GRPCStatusCode.pushbackKey

    /// A budget as gRPC retry throttling: tokens start at maxTokens, each
    /// failure costs one, each success adds tokenRatio, and retries are
    /// allowed while more than half remain. The policy's budget allows
    /// capacity / retry_cost retries from full, so maxTokens is twice
    /// that and tokenRatio is success_refund / retry_cost.
    static func throttling(_ budget: RetryBudgetConfiguration, behaviour: PolicyBehaviour) -> (InteropValue?, [InteropWarning]) {
        var warnings: [InteropWarning] = []
        let at = behaviour.location("budget")
        let bucket: TokenBucketBudget
        switch budget.rules {
        case .grpc(let throttling):
            // The same rule, numbers in thousandths: exact.
            return (.object([
                .init("maxTokens", .int(throttling.maxTokens)),
                .init("tokenRatio", .number(NumberText.thousandths(throttling.tokenRatio))),
            ]), warnings)
        case .ratio:
            warnings.append(InteropWarning(feature: "budget", location: at,
                message: "gRPC throttling counts failures and successes, not a share of requests: a ratio budget has no retryThrottling equivalent; not exported"))
            return (nil, warnings)
        case .tokenBucket(let tokenBucket):
            bucket = tokenBucket
        }
        guard budget.retryCost > 0 else {
            warnings.append(InteropWarning(feature: "budget", location: at, message: "a budget whose retries cost nothing has no gRPC throttling equivalent; not exported"))
            return (nil, warnings)
        }
        var maxTokens = 2 * budget.capacity / budget.retryCost
        if (2 * budget.capacity) % budget.retryCost != 0 {
            warnings.append(InteropWarning(feature: "budget.capacity", location: behaviour.location("budget.capacity", "budget"),
                message: "gRPC counts whole tokens: capacity \(budget.capacity) / retry_cost \(budget.retryCost) retries is rounded down to \(maxTokens / 2)"))
        }
        if maxTokens > 1000 || maxTokens < 1 {
            let clamped = min(max(maxTokens, 1), 1000)
            warnings.append(InteropWarning(feature: "budget.capacity", location: behaviour.location("budget.capacity", "budget"),
                message: "gRPC allows maxTokens 1-1000; the budget needs \(maxTokens), exported as \(clamped)"))
            maxTokens = clamped
        }
        if budget.timeoutRetryCost != budget.retryCost {
            warnings.append(InteropWarning(feature: "budget.timeout_retry_cost", location: behaviour.location("budget.timeout_retry_cost", "budget"),
                message: "gRPC charges every failure the same; timeout_retry_cost \(budget.timeoutRetryCost) differs from retry_cost \(budget.retryCost)"))
        }
        // tokenRatio: up to three decimals, greater than zero.
        var thousandths = bucket.successRefund * 1000 / budget.retryCost
        if (bucket.successRefund * 1000) % budget.retryCost != 0 {
            warnings.append(InteropWarning(feature: "budget.success_refund", location: behaviour.location("budget.success_refund", "budget"),
                message: "gRPC's tokenRatio has three decimals; success_refund / retry_cost = \(bucket.successRefund)/\(budget.retryCost) is rounded down"))
        }
        if thousandths <= 0 {
            warnings.append(InteropWarning(feature: "budget.success_refund", location: behaviour.location("budget.success_refund", "budget"),
                message: "gRPC requires tokenRatio greater than zero; exported as 0.001"))
            thousandths = 1
        }
        if budget.throttlingRetryCost != budget.retryCost {
            warnings.append(InteropWarning(feature: "budget.throttling_retry_cost", location: behaviour.location("budget.throttling_retry_cost", "budget.preset", "budget"),
                message: "gRPC charges every failure the same; throttling_retry_cost \(budget.throttlingRetryCost) differs from retry_cost \(budget.retryCost)"))
        }
        return (.object([.init("maxTokens", .int(maxTokens)), .init("tokenRatio", .number(NumberText.thousandths(thousandths)))]), warnings)
    }
}
