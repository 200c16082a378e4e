import RetryPolicyCore
import RetryPolicyExecutor
import Synchronization

// What the executor benchmarks and `executor-profile` share: the policy,
// the responses, the server and the clock. Public and inlinable, so that
// code using them is compiled as if they were in its own module.

/// Seed 002's retry policy as data: 3 attempts, exponential backoff from
/// 1 s, 5xx and lost connections retried, everything else final.
public enum SeedPolicy {
    public static let networkingGuide = Policy(
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
public struct StubResponse: RetryableResponse {
    public var statusCode: Int

    @inlinable
    public init(statusCode: Int) { self.statusCode = statusCode }

    @inlinable
    public func headerValue(named name: String) -> String? { nil }

    public static let ok = StubResponse(statusCode: 200)
    public static let unavailable = StubResponse(statusCode: 503)
}

/// Answers 503 twice, then 200: a three-attempt request.
public final class FlakyServer: Sendable {
    @usableFromInline let calls = Atomic<Int>(0)

    @inlinable
    public init() {}

    @inlinable
    public func respond() -> StubResponse {
        calls.add(1, ordering: .relaxed).newValue < 3 ? .unavailable : .ok
    }
}

/// A clock whose sleeps return at once, so both sides measure the retry
/// logic and not the waiting.
public struct ImmediateClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    @inlinable
    public init() {}

    @inlinable
    public var now: Instant { ContinuousClock.now }

    @inlinable
    public var minimumResolution: Duration { .zero }

    @inlinable
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
    }
}
