import RetryPolicyCore

/// RP122: hedging a method that is not idempotent.
enum HedgingNonIdempotent: PolicyCheck {
    static let rule = LintRule(
        id: "RP122", name: "hedging-non-idempotent", defaultSeverity: .warning,
        summary: "Hedging sends copies of a method that is not idempotent.",
        explanation: """
            Hedging sends a second copy of a request while the first is still in flight, so the \
            server may perform both: for `POST` or `PATCH` that is a second payment or a second \
            order, and unlike a retry there was not even a failure to suggest the first copy was \
            lost. gRPC applies hedging only to methods declared safe to repeat; Polly's hedging \
            documentation says the same. Hedge only the methods RFC 9110 defines as idempotent \
            (`GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE`), and send an idempotency key with \
            the others: a request marked idempotent is hedged whatever its method when \
            `idempotency.honor_idempotent_requests` is true.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let hedging = policy.hedging else { return [] }
        let unsafe = hedging.hedgedMethods(policy.idempotency).subtracting(HTTPMethod.idempotent).sorted()
        guard !unsafe.isEmpty else { return [] }
        let names = unsafe.map(\.rawValue).joined(separator: ", ")
        return [finding(
            at: context.place(key: "hedging.methods", "hedging", or: hedging.location, policy),
            "hedging sends copies of \(names), which \(unsafe.count == 1 ? "is" : "are") not idempotent: the server may perform \(unsafe.count == 1 ? "it" : "them") more than once",
            suggestion: "hedge only idempotent methods, and mark requests that carry an idempotency key as idempotent")]
    }
}

/// RP123: a hedging delay that no attempt lives to see.
enum HedgeDelayBeyondTimeout: PolicyCheck {
    static let rule = LintRule(
        id: "RP123", name: "hedge-delay-beyond-timeout", defaultSeverity: .warning,
        summary: "The hedging delay is at least the per-attempt timeout or the total deadline.",
        explanation: """
            The next copy of a hedged request starts when the earlier ones have not answered \
            within `hedging.delay`. With a per-attempt timeout no longer than that delay, every \
            copy has timed out before the next one starts, so the copies never overlap and \
            hedging is only a retry without backoff; with a total deadline no longer than the \
            delay, no second copy ever starts. Choose a delay below the per-attempt timeout \
            (about the latency's 95th percentile is usual), or raise the timeout.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let hedging = policy.hedging, policy.attempts > 1 else { return [] }
        let place = context.place(key: "hedging.delay", "hedging", or: hedging.location, policy)
        var budgets: [(String, TimeoutBudget)] = [("", policy.timeouts)]
        for endpoint in policy.endpoints.keys.sorted() {
            budgets.append((" for endpoint '\(endpoint)'", policy.timeouts(for: endpoint)))
        }
        let delay = hedging.delay.formattedForHumans
        for (scope, budget) in budgets {
            if let total = budget.total, total <= hedging.delay {
                return [finding(
                    at: place,
                    "hedging.delay \(delay) is at least the total deadline \(total.formattedForHumans)\(scope): no second copy ever starts",
                    suggestion: "shorten hedging.delay below the total deadline")]
            }
            if let perAttempt = budget.perAttempt, perAttempt <= hedging.delay {
                return [finding(
                    at: place,
                    "hedging.delay \(delay) is at least the per-attempt timeout \(perAttempt.formattedForHumans)\(scope): every copy times out before the next starts, so copies never overlap",
                    suggestion: "shorten hedging.delay below the per-attempt timeout, or raise timeouts.per_attempt")]
            }
        }
        return []
    }
}

/// RP124: a hedging section that never sends a second copy.
enum HedgingNeverHedges: PolicyCheck {
    static let rule = LintRule(
        id: "RP124", name: "hedging-never-hedges", defaultSeverity: .warning,
        summary: "The hedging section never sends a second copy.",
        explanation: """
            Hedged requests send at most `attempts` copies, and each copy after the first is a \
            retry of the request, so it needs a method the policy may retry \
            (`idempotency.methods`). With `attempts: 1`, with no method left to hedge, or for \
            a hedged method the policy never retries, no second copy is ever sent and the \
            section only misleads its readers. Raise `attempts`, or list the method under \
            `idempotency.methods`, or remove the section.
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        guard let hedging = policy.hedging else { return [] }
        let place = context.place(key: "hedging", or: hedging.location, policy)
        if policy.attempts <= 1 {
            return [finding(
                at: place, "hedging never sends a second copy: attempts is 1",
                suggestion: "raise attempts to the number of copies to send, or remove the hedging section")]
        }
        let hedged = hedging.hedgedMethods(policy.idempotency)
        let neverRetried = hedged.subtracting(policy.idempotency.retryableMethods).sorted()
        if !neverRetried.isEmpty {
            let names = neverRetried.map(\.rawValue).joined(separator: ", ")
            return [finding(
                at: context.place(key: "hedging.methods", "hedging", or: hedging.location, policy),
                "hedging lists \(names), which idempotency.methods does not retry: \(neverRetried.count == 1 ? "its" : "their") requests never get a second copy",
                suggestion: "add \(names) to idempotency.methods, or remove \(neverRetried.count == 1 ? "it" : "them") from hedging.methods")]
        }
        if hedged.isEmpty && !policy.idempotency.honorIdempotentRequests {
            return [finding(
                at: place,
                "hedging applies to no request: none of the retryable methods is idempotent and requests marked idempotent are not honoured",
                suggestion: "list the methods to hedge under hedging.methods, or remove the hedging section")]
        }
        return []
    }
}
