#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RetryPolicyCore

/// What the fleet benchmarks and `fleet-probe` share: one policy with a
/// retry budget and a cooldown that is waited out, and the wall clock the
/// shared cooldowns are kept in.
public enum FleetWorkload {
    /// The environment variable carrying the PostgreSQL URL
    /// (`Scripts/fleet.py` sets it).
    public static let urlVariable = "RETRY_POLICY_BENCH_POSTGRES_URL"

    /// Four attempts, a budget of `capacity` tokens at 5 per retry and 1
    /// back per success, `Retry-After` honoured up to 60 s with the
    /// cooldown waited out, 503 and 429 retried.
    public static func policy(capacity: Int = 1_000_000_000) -> Policy {
        Policy(
            name: "fleet",
            attempts: 4,
            backoff: Backoff(initial: .milliseconds(100), max: .seconds(5), multiplier: 2, jitter: .full),
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60), cooldown: .wait),
            budget: RetryBudgetConfiguration(capacity: capacity, retryCost: 5, timeoutRetryCost: 10, successRefund: 1),
            rules: [
                Rule(statuses: [.code(503)], error: .status5xx, action: .retry),
                Rule(statuses: [.code(429)], error: .status429, action: .retry),
            ])
    }

    /// `CLOCK_REALTIME`, the clock shared cooldown deadlines are kept in.
    public static func wallNow() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(nanosecondsSince1970: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }
}
