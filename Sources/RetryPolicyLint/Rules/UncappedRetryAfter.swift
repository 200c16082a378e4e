import RetryPolicyCore

/// RP106: server delays are honoured with no upper bound.
enum UncappedRetryAfter: PolicyCheck {
    static let rule = LintRule(
        id: "RP106", name: "retry-after-uncapped", defaultSeverity: .warning,
        summary: "Retry-After is honoured without a cap.",
        explanation: """
            Honouring `Retry-After` is right: it is the server saying how long it needs. But the value \
            is untrusted input. A misconfigured proxy or a hostile server can send `Retry-After: 86400` \
            and a client without a cap will hold the request (and, with cooldown, every request) for a \
            day. A cap states the longest wait the product accepts; `above_cap` says what happens past \
            it (stop with `retry_after_too_long`, clamp to the cap, or ignore the header).

            Fix:
                retry_after:
                  cap: 60s
                  above_cap: stop
            """)

    static func check(_ policy: Policy, context: LintContext) -> [LintFinding] {
        let retryAfter = policy.retryAfter
        guard retryAfter.cap == nil, !retryAfter.headers.isEmpty else { return [] }
        // Server delays matter only for retries or for cooldowns.
        guard policy.retries || retryAfter.cooldown != .off else { return [] }
        let honoured = retryAfter.honor || policy.rules.contains { $0.honorRetryAfter == true }
        guard honoured else { return [] }
        let names = retryAfter.headers.map(\.name).joined(separator: ", ")
        return [finding(
            at: context.place(key: "retry_after.honor", "retry_after", or: retryAfter.location, policy),
            "\(names) is honoured without a cap: a server can make this client wait any length of time",
            suggestion: "set retry_after.cap, e.g. 60s")]
    }
}
