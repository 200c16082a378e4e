import RetryPolicyCore

/// RP108: retrying 4xx responses other than 408, 425 and 429.
enum RetriedClientError: PolicyCheck {
    static let rule = LintRule(
        id: "RP108", name: "retried-client-error", defaultSeverity: .warning,
        summary: "A 4xx other than 408, 425 and 429, or a gRPC status that says the request is wrong, is retried.",
        explanation: """
            A 4xx says the request itself is wrong (bad input, missing auth, not found). Sending the \
            same request again gets the same answer, so the retries only add load and latency. The \
            exceptions are transient by definition: 408 Request Timeout, 425 Too Early and \
            429 Too Many Requests. A 401 rule with `refresh_credentials: true` (refresh the token, \
            retry once) is also fine: the retried request is a different request.

            gRPC says the same of INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, \
            FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED and UNAUTHENTICATED (grpc/grpc \
            doc/statuscodes.md; gRFC A6: "only status codes that indicate the service did not process \
            the request should be retried"), so a `grpc` rule that retries one is reported too \
            (UNAUTHENTICATED with `refresh_credentials: true` excepted).

            Fix: make the rule `action: stop`, or narrow its statuses to 408, 425, 429.
            """)

    /// gRPC statuses that say the request itself is wrong.
    static let grpcClientErrors: [GRPCStatusCode] = [
        .invalidArgument, .notFound, .alreadyExists, .permissionDenied, .failedPrecondition, .outOfRange,
        .unimplemented, .unauthenticated,
    ]

    static let transient: Set<Int> = [408, 425, 429]

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.attempts > 1 else { return [] }
        return httpFindings(policy, context: context) + grpcFindings(policy, context: context)
    }

    /// Retrying `grpc` rules (and a retrying default, in a policy with
    /// `grpc` rules) over the gRPC statuses that say the request is wrong.
    static func grpcFindings(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard policy.hasGRPCRules else { return [] }
        var byRule: [Int: Set<GRPCStatusCode>] = [:]  // rule index (-1 = default) -> statuses
        let table = FirstMatchTable(compiled: context.compiled(policy), methods: HTTPMethod.standard)
        for status in grpcClientErrors {
            for method in HTTPMethod.standard.indices {
                if let index = table.rule(for: .grpc(status), methodIndex: method) {
                    let rule = policy.rules[index]
                    guard rule.action == .retry, !rule.refreshCredentials else { continue }
                    byRule[index, default: []].insert(status)
                } else if policy.defaultRule?.action == .retry {
                    byRule[-1, default: []].insert(status)
                }
            }
        }
        return byRule.keys.sorted().map { index in
            let names = byRule[index]!.sorted().map(\.name).joined(separator: ", ")
            if index < 0 {
                return finding(
                    at: context.place(policy.defaultRule?.location, policy),
                    "the default retries gRPC \(names); these say the request is wrong, and it fails the same way again",
                    suggestion: "make the default stop, with grpc rules for the statuses worth retrying")
            }
            return finding(
                at: context.place(policy.rules[index].location, policy),
                "\(ruleName(policy.rules[index], index: index)) retries gRPC \(names); these say the request is wrong, and it fails the same way again",
                suggestion: "use action: stop for these statuses")
        }
    }

    static func httpFindings(_ policy: Policy, context: LintContext) -> [LintFinding] {
        // Only a retrying rule naming such a status, or a retrying
        // default, can retry one: without either there is nothing to find
        // (most policies), and no table to build.
        let candidates = 400...499
        let canRetry = policy.defaultRule?.action == .retry || policy.rules.contains { rule in
            rule.action == .retry && !rule.refreshCredentials && rule.statuses.contains { pattern in
                let codes = pattern.codes
                guard codes.overlaps(candidates) else { return false }
                return (max(codes.lowerBound, candidates.lowerBound)...min(codes.upperBound, candidates.upperBound))
                    .contains { !transient.contains($0) }
            }
        }
        guard canRetry else { return [] }
        var byRule: [Int: Set<Int>] = [:]  // rule index (-1 = default) -> statuses
        let table = FirstMatchTable(compiled: context.compiled(policy), methods: HTTPMethod.standard)
        for code in 400...499 where !transient.contains(code) {
            for method in HTTPMethod.standard.indices {
                if let index = table.rule(for: .status(code), methodIndex: method) {
                    let rule = policy.rules[index]
                    guard rule.action == .retry, !rule.refreshCredentials else { continue }
                    byRule[index, default: []].insert(code)
                } else if policy.defaultRule?.action == .retry {
                    byRule[-1, default: []].insert(code)
                }
            }
        }
        return byRule.keys.sorted().map { index in
            let codes = IntegerRanges.text(byRule[index]!)
            if index < 0 {
                return finding(
                    at: context.place(policy.defaultRule?.location, policy),
                    "the default retries client errors \(codes); a 4xx other than 408, 425, 429 fails the same way again",
                    suggestion: "make the default stop, with rules for 408, 425, 429")
            }
            return finding(
                at: context.place(policy.rules[index].location, policy),
                "\(ruleName(policy.rules[index], index: index)) retries client errors \(codes); a 4xx other than 408, 425, 429 fails the same way again",
                suggestion: "use action: stop for these statuses")
        }
    }
}
