import RetryPolicyCore
import RetryPolicyYAML

/// One method config of a validated gRPC service config (gRFC A6) to a
/// policy.
enum GRPCImporter {
    static func importMethodConfig(
        _ methodConfig: GRPCServiceConfig.MethodConfig, of config: GRPCServiceConfig, name: String, path: String
    ) -> ImportedPolicy {
        var imported = ImportedPolicy(name: name, source: path, format: .grpc, attempts: 1, backoff: .immediate)
        imported.grpcOnly = true
        imported.retryAfter = RetryAfterPolicy(
            honor: true, cap: nil, aboveCap: .stop, combine: .server,
            headers: [RetryAfterPolicy.Header(name: GRPCExporter.pushbackHeader, format: .milliseconds)])
        imported.comment("retry_after", "gRPC honours the server's grpc-retry-pushback-ms exactly, with no cap (gRFC A6);")
        imported.comment("retry_after", "grpc rules read it from the call's metadata, and a negative one stops.")
        imported.comment("idempotency", "gRPC retries every method.")
        let names = methodConfig.names.map(\.text)
        imported.comment("", "methodConfig[\(methodConfig.index)], for \(names.isEmpty ? "no method" : names.joined(separator: ", ")).")
        if let choice = config.choice {
            let languages = ForeignReader.value(choice, "clientLanguage").map { ForeignReader.items($0).compactMap(\.scalarText) } ?? []
            imported.comment("", "From the DNS TXT record form: the serviceConfig of the first choice"
                + (languages.isEmpty ? "" : " (clientLanguage \(languages.joined(separator: ", ")))") + ".")
        }
        if let timeout = methodConfig.timeout, let node = methodConfig.timeoutNode, timeout > .zero {
            imported.timeouts.total = imported.policyDuration(timeout, key: "timeouts", what: "methodConfig.timeout", at: node.location)
            imported.comment("timeouts", "methodConfig.timeout is the call's deadline, across every attempt.")
        }
        if let retry = methodConfig.retryPolicy {
            readRetryPolicy(retry, into: &imported)
            if let hedging = methodConfig.hedgingPolicy {
                imported.warn("hedgingPolicy", at: hedging.node.location,
                              "a method config with both retryPolicy and hedgingPolicy: gRPC's C core uses the retryPolicy and grpc-java refuses the pair; hedging not imported")
            }
        } else if let hedging = methodConfig.hedgingPolicy {
            readHedgingPolicy(hedging, into: &imported)
        } else {
            imported.comment("attempts", "No retryPolicy: gRPC makes a single attempt.")
        }
        if let problem = methodConfig.hedgingProblem {
            imported.warn("hedgingPolicy", at: problem.location,
                          "hedgingPolicy is not valid (\(problem.message)); gRPC's C core ignores hedgingPolicy and grpc-java refuses it; not imported")
        }
        if let throttling = config.throttling {
            readThrottling(throttling, into: &imported)
        }
        return imported
    }

    static func attempts(_ value: Int, node: YAMLNode, field: String, into imported: inout ImportedPolicy) -> Int {
        guard value > GRPCExporter.maxAttemptsLimit else { return value }
        let limit = GRPCExporter.maxAttemptsLimit
        imported.warn("maxAttempts", at: node.location, "gRPC treats \(field) \(value) as \(limit)")
        imported.comment("attempts", "\(field) \(value): gRPC treats values above \(limit) as \(limit).")
        return limit
    }

    static func readRetryPolicy(_ retry: GRPCServiceConfig.RetryPolicy, into imported: inout ImportedPolicy) {
        imported.attempts = attempts(retry.maxAttempts, node: retry.maxAttemptsNode, field: "maxAttempts", into: &imported)
        let initial = imported.policyDuration(retry.initialBackoff, key: "backoff", what: "initialBackoff", at: retry.initialBackoffNode.location)
        let maximum = imported.policyDuration(retry.maxBackoff, key: "backoff", what: "maxBackoff", at: retry.maxBackoffNode.location)
        var multiplier = retry.multiplier
        if multiplier > 100 {
            imported.warn("backoffMultiplier", at: retry.multiplierNode.location, "the policy format allows multipliers up to 100; \(multiplier) imported as 100")
            multiplier = 100
        }
        imported.backoff = Backoff(initial: initial, max: maximum, multiplier: multiplier, jitter: .full)
        imported.comment("backoff", "gRPC waits a random time in [0, min(initialBackoff x multiplier^(n-1), maxBackoff)] (full jitter).")
        retried(retry.codes, at: retry.codesNode.location, field: "retryableStatusCodes", into: &imported)
    }

    /// gRFC A6 hedging: `maxAttempts` copies `hedgingDelay` apart; a
    /// non-fatal status starts the next copy at once, any other ends the
    /// call.
    static func readHedgingPolicy(_ hedging: GRPCServiceConfig.HedgingPolicy, into imported: inout ImportedPolicy) {
        imported.attempts = attempts(hedging.maxAttempts, node: hedging.node, field: "hedgingPolicy.maxAttempts", into: &imported)
        var delay = imported.policyDuration(hedging.delay, key: "hedging", what: "hedgingDelay", at: (hedging.delayNode ?? hedging.node).location)
        if delay == .zero {
            imported.warn("hedgingDelay", at: (hedging.delayNode ?? hedging.node).location,
                          "hedgingDelay \(hedging.delayNode == nil ? "absent (0s)" : "0s") starts every copy at once; a policy's hedging delay is at least 1ms, imported as 1ms")
            delay = .milliseconds(1)
        }
        imported.hedging = RetryPolicyCore.HedgingPolicy(delay: delay, methods: Set(HTTPMethod.standard))
        imported.comment("hedging", "hedgingPolicy: up to maxAttempts copies, hedgingDelay apart; the first success wins.")
        imported.comment("hedging", "gRPC hedges every call, so every method is listed.")
        imported.comment("hedging", "grpc-java hedges; gRPC's C core (C++, Python, Ruby...) and grpc-go ignore hedgingPolicy and make one attempt.")
        if hedging.nonFatalCodes.isEmpty {
            imported.comment("rules", "No nonFatalStatusCodes: every failure is fatal and ends the call.")
        } else {
            retried(hedging.nonFatalCodes, at: hedging.node.location, field: "nonFatalStatusCodes", into: &imported)
        }
    }

    /// gRPC status `codes` as `grpc` rules: the same codes, no mapping.
    static func retried(_ codes: [GRPCStatus], at location: SourceLocation, field: String, into imported: inout ImportedPolicy) {
        imported.retriedGRPC.formUnion(codes)
        let names = GRPCStatusCode.allCases.filter(codes.contains).map(\.name)
        imported.comment("rules", "\(field) \(names.joined(separator: ", ")): retried by grpc rules; other statuses stop.")
        if codes.contains(.ok) {
            imported.warn(field, at: location, "\(field) lists OK, which ends a call successfully and is never retried; not imported")
            imported.retriedGRPC.remove(.ok)
        }
    }

    static func readThrottling(_ throttling: GRPCServiceConfig.Throttling, into imported: inout ImportedPolicy) {
        var maxTokens = throttling.maxTokens
        if maxTokens > 1000 {
            imported.warn("maxTokens", at: throttling.maxTokensNode.location, "gRPC allows maxTokens up to 1000; \(maxTokens) imported as 1000")
            maxTokens = 1000
        }
        var thousandths = throttling.thousandths
        if throttling.truncated {
            imported.warn("tokenRatio", at: throttling.ratioNode.location,
                          "gRPC keeps three decimals of tokenRatio; it is used as \(NumberText.thousandths(thousandths))")
        }
        if thousandths > 1_000_000 {
            imported.warn("tokenRatio", at: throttling.ratioNode.location, "the policy format allows token_ratio up to 1000; imported as 1000")
            thousandths = 1_000_000
        }
        imported.budget = .grpc(maxTokens: maxTokens, tokenRatioThousandths: thousandths)
        imported.comment("budget", "retryThrottling {maxTokens: \(maxTokens), tokenRatio: \(NumberText.thousandths(thousandths))}: the same rule")
        imported.comment("budget", "(every retryable failure costs a token, every success returns tokenRatio,")
        imported.comment("budget", "retries only while more than maxTokens/2 remain).")
    }
}
