import RetryPolicyCore
import RetryPolicyExecutor
import Synchronization

/// Seed 002's retry policy as data: 3 attempts, exponential backoff from
/// 1 s, 5xx and lost connections retried, everything else final.
enum SeedPolicy {
    static let networkingGuide = Policy(
        name: "networking-guide",
        attempts: 3,
        backoff: Backoff(initial: .seconds(1), max: .seconds(60), multiplier: 2, jitter: .none),
        rules: [
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(transports: [.connectionLost, .offline], error: .networkError, action: .retry),
            Rule(statuses: [.code(401)], error: .unauthorized, action: .stop),
            Rule(statuses: [.code(404)], error: .notFound, action: .stop),
        ],
        defaultRule: DefaultRule(error: .internalError, action: .stop)
    )
}

/// A response as an HTTP client hands it over.
struct StubResponse: RetryableResponse {
    var statusCode: Int
    func headerValue(named name: String) -> String? { nil }

    static let ok = StubResponse(statusCode: 200)
    static let unavailable = StubResponse(statusCode: 503)
}

/// Answers 503 twice, then 200: a three-attempt request.
final class FlakyServer: Sendable {
    private let calls = Atomic<Int>(0)
    func respond() -> StubResponse {
        calls.add(1, ordering: .relaxed).newValue < 3 ? .unavailable : .ok
    }
}

/// A clock whose sleeps return at once, so both sides measure the retry
/// logic and not the waiting.
struct ImmediateClock: Clock {
    typealias Instant = ContinuousClock.Instant
    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }
    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
    }
}

// MARK: Seed 002, as written, with its sleep on the injected clock

enum NetworkError: Error, Sendable, Equatable {
    case unauthorized
    case notFound
    case serverError(Int)
    case noConnection
    case decodingFailed(String)
    case unexpected(String?)

    var isRetryable: Bool {
        switch self {
        case .serverError, .noConnection: return true
        default: return false
        }
    }
}

/// The seed's `validate(_:)`.
@inline(never)
func validate(_ response: StubResponse) throws(NetworkError) -> StubResponse {
    switch response.statusCode {
    case 200...299: return response
    case 401: throw .unauthorized
    case 404: throw .notFound
    case 500...599: throw .serverError(response.statusCode)
    default: throw .unexpected(nil)
    }
}

/// The seed's `withRetry`, with `Task.sleep(for:)` replaced by the same
/// zero-delay clock the executor gets.
func withRetry<T: Sendable>(
    clock: ImmediateClock,
    maxAttempts: Int = 3,
    initialDelay: Duration = .seconds(1),
    shouldRetry: @Sendable (Error) -> Bool = { ($0 as? NetworkError)?.isRetryable == true },
    operation: @Sendable () async throws -> T
) async throws -> T {
    var delay = initialDelay
    for attempt in 1...maxAttempts {
        do {
            return try await operation()
        } catch {
            guard attempt < maxAttempts, shouldRetry(error) else { throw error }
            try await clock.sleep(for: delay)
            delay *= 2
        }
    }
    throw NetworkError.unexpected("Retry loop exited unexpectedly")
}
