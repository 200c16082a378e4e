import RetryPolicyCore

// MARK: Seed 003's retry function, from its README

/// How long to wait before the next attempt: a function of the attempt
/// (0 for the wait after the first try), as seed 003's strategies are.
/// The modifiers wrap the function they start from, so a capped,
/// jittered exponential backoff is three nested closures.
public struct BackoffStrategy<C: Clock>: Sendable {
    public let duration: @Sendable (_ attempt: Int) -> C.Duration

    @inlinable
    public init(duration: @escaping @Sendable (_ attempt: Int) -> C.Duration) {
        self.duration = duration
    }

    /// `f(x) = 0`.
    @inlinable
    public static var none: Self { Self { _ in .zero } }

    /// `f(x) = c`.
    @inlinable
    public static func constant(c: C.Duration) -> Self { Self { _ in c } }

    /// `f(x) = a * x + b`.
    @inlinable
    public static func linear(a: C.Duration, b: C.Duration) -> Self { Self { attempt in a * attempt + b } }

    /// `f(x) = a * b^x`.
    @inlinable
    public static func exponential(a: C.Duration, b: Int) -> Self {
        Self { attempt in
            var factor = 1
            for _ in 0..<attempt { factor *= b }
            return a * factor
        }
    }

    /// `g(x) = min(f(x), M)`.
    @inlinable
    public func max(_ M: C.Duration) -> Self {
        let base = duration
        return Self { attempt in Swift.min(base(attempt), M) }
    }
}

extension BackoffStrategy where C.Duration == Duration {
    /// `g(x) = random[0, f(x)[`.
    @inlinable
    public func jitter() -> Self {
        let base = duration
        return Self { attempt in
            let upper = base(attempt).nanosecondsForJitter
            return upper > 0 ? .nanoseconds(Int64.random(in: 0..<upper)) : .zero
        }
    }
}

extension Duration {
    @inlinable
    var nanosecondsForJitter: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// What the per-error strategy closure answers: wait and try again, or
/// give up and rethrow.
public enum RetryStrategy<C: Clock>: Sendable {
    case backoff(BackoffStrategy<C>)
    case stop
}

/// Seed 003's `retry`: runs `operation` up to `maxAttempts` times; after a
/// failure that is not the last, asks `strategy` what the error means and
/// sleeps on `clock` for the backoff it names, or rethrows on `.stop`.
@inlinable
public func retry<R, E: Error, C: Clock>(
    maxAttempts: Int = 3,
    tolerance: C.Duration? = nil,
    clock: C,
    isolation: isolated (any Actor)? = #isolation,
    operation: () async throws(E) -> sending R,
    strategy: (E) -> RetryStrategy<C> = { _ in .backoff(.none) }
) async throws -> R {
    precondition(maxAttempts > 0, "maxAttempts must be greater than 0")
    for attempt in 0..<maxAttempts - 1 {
        do {
            return try await operation()
        } catch {
            switch strategy(error) {
            case .backoff(let backoff):
                try await clock.sleep(for: backoff.duration(attempt), tolerance: tolerance)
            case .stop:
                throw error
            }
        }
    }
    return try await operation()
}

// MARK: The benchmark's request in seed 003's terms

/// A status the client treats as a failure, thrown by the operation so
/// that the strategy closure can look at it (the README's `TooManyRequests`
/// pattern).
public struct FailedStatus: Error {
    public var statusCode: Int

    @inlinable
    public init(statusCode: Int) { self.statusCode = statusCode }
}

public enum Seed003Request {
    /// The same backoff as ``SeedPolicy/networkingGuide``: 1 s doubling,
    /// capped at 60 s, no jitter. Built once rather than in the strategy
    /// closure (as the README's examples do), which is the cheapest way to
    /// use the function and so the stricter baseline.
    public static let backoff = BackoffStrategy<ImmediateClock>.exponential(a: .seconds(1), b: 2).max(.seconds(60))

    /// 5xx is retried, everything else stops.
    @inlinable
    public static func strategy(_ error: FailedStatus) -> RetryStrategy<ImmediateClock> {
        (500...599).contains(error.statusCode) ? .backoff(backoff) : .stop
    }

    /// What a thrown status means to the executor's policy: the status
    /// itself, so the policy's rules judge it as a returned one.
    @inlinable
    public static func classify(_ result: Result<StubResponse, FailedStatus>) -> AttemptOutcome? {
        if case .failure(let failed) = result { return .status(failed.statusCode) }
        return nil
    }

    /// One request: a non-2xx answer becomes the thrown error.
    @inline(never)
    public static func check(_ response: StubResponse) throws(FailedStatus) -> StubResponse {
        guard (200...299).contains(response.statusCode) else { throw FailedStatus(statusCode: response.statusCode) }
        return response
    }
}
