import RetryPolicyCore
import RetryPolicyTestSupport

/// A decider with a fixed seed, so tests are reproducible.
func decide(
    _ policy: Policy,
    _ outcome: AttemptOutcome,
    attempt: Int = 1,
    elapsed: Duration = .zero,
    method: HTTPMethod = .get,
    now: Timestamp? = nil,
    seed: UInt64 = 42
) -> Decision {
    var generator = SplitMix64(seed: seed)
    return RetryDecider(policy: policy).decide(
        DecisionInput(outcome: outcome, attempt: attempt, elapsed: elapsed, method: method, now: now),
        using: &generator)
}

extension AttemptOutcome {
    static func status(_ status: Int, retryAfter: String) -> AttemptOutcome {
        .response(status: status, headers: ["Retry-After": retryAfter])
    }
}
