// docs/executor.md begin: retry
import RetryPolicyCore
import RetryPolicyExecutor

/// Seed 003's `retry(maxAttempts:clock:operation:strategy:)` on the
/// engine: the strategy answers per error, within `maxAttempts`.
enum RetryStrategy {
    /// Retry after this backoff's delay for the retry at hand.
    case backoff(Backoff)
    case stop
}

func retry<R, E: Error, C: Clock<Duration>>(
    maxAttempts: Int = 3,
    clock: C,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(E) -> R,
    strategy: (E) -> RetryStrategy = { _ in .backoff(.immediate) }
) async throws -> R {
    precondition(maxAttempts > 0, "maxAttempts must be greater than 0")
    let executor = RetryExecutor(decider: RetryDeciders.retryingEveryError(maxAttempts: maxAttempts), clock: clock)
    var generator = SystemRandomNumberGenerator()
    do {
        return try await executor.run(
            override: { attempt in
                guard let error = attempt.thrown else { return .asPolicySays }
                switch strategy(error) {
                case .backoff(let backoff):
                    return .retry(after: backoff.delay(forRetry: attempt.number, previousDelay: nil, using: &generator))
                case .stop:
                    return .stop
                }
            },
            isolation: isolation
        ) { _ throws(E) in try await operation() }
    } catch where error.reason == .cancelled {
        // A cancelled task runs no further attempt and ends as Swift code
        // expects a cancelled wait to: with `CancellationError`.
        throw CancellationError()
    } catch {
        // As the seed does: the operation's last error, not the policy's.
        throw error.underlyingError ?? error
    }
}

/// One compiled policy per `maxAttempts`, built on first use: a call pays
/// for a look-up, not for compiling the policy.
enum RetryDeciders {
    private static let byAttempts = LockedValue<[Int: RetryDecider]>([:])

    /// Every failure is retryable, the strategy may stop it; no budget,
    /// breaker or server delays, so no decision needs the clock.
    static func retryingEveryError(maxAttempts: Int) -> RetryDecider {
        byAttempts.withLock { deciders in
            if let decider = deciders[maxAttempts] { return decider }
            let policy = Policy(
                name: "retry", attempts: maxAttempts,
                retryAfter: RetryAfterPolicy(honor: false, headers: []),
                idempotency: Idempotency(retryableMethods: Set(HTTPMethod.standard)),
                defaultRule: DefaultRule(error: .internalError, action: .retry))
            let decider = RetryDecider(policy: policy)
            deciders[maxAttempts] = decider
            return decider
        }
    }
}
// docs/executor.md end: retry
