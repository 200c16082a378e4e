// docs/executor.md begin: withRetry
import RetryPolicyCore
import RetryPolicyExecutor

/// Seed 002's typed error and its `withRetry`, with its API client's
/// 401-refresh-then-retry-once: what each error means is the policy's.
enum NetworkError: Error, Equatable {
    case unauthorized, notFound, serverError(Int), noConnection, decodingFailed(String), unexpected(String?)
}

let withRetryPolicy = """
    version: 1
    name: with-retry
    attempts: 3
    backoff: {initial: 1s, max: 4s, multiplier: 2, jitter: none}
    idempotency: {methods: [GET, HEAD, PUT, DELETE, OPTIONS, POST, PATCH]}
    rules:
      - {status: 401, error: unauthorized, action: retry, refresh_credentials: true}
      - {status: 5xx, error: status_5xx, action: retry}
      - {transport: offline, error: network_error, action: retry}
    default: {error: internal_error, action: stop}
    """

func withRetry<T, C: Clock<Duration>>(
    policy: Policy,
    clock: C,
    refreshToken: @escaping @Sendable () async throws -> Void,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(NetworkError) -> T
) async throws -> T {
    let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, refreshCredentials: refreshToken)
    do {
        return try await executor.run(
            classify: { (result: Result<T, NetworkError>) in
                guard case .failure(let error) = result else { return nil }
                switch error {
                case .unauthorized: return .status(401)
                case .notFound: return .status(404)
                case .serverError(let status): return .status(status)
                case .noConnection: return .transport(.offline)
                case .decodingFailed: return .transport(.decoding)
                case .unexpected: return .transport(.unknown)
                }
            },
            isolation: isolation
        ) { _ throws(NetworkError) in try await operation() }
    } catch {
        // As the seed does: the last NetworkError, not the policy's.
        throw error.underlyingError ?? error
    }
}
// docs/executor.md end: withRetry
