import RetryPolicyCore

// MARK: Seed 002, as written, with its sleep on the injected clock

public enum NetworkError: Error, Sendable, Equatable {
    case unauthorized
    case notFound
    case serverError(Int)
    case noConnection
    case decodingFailed(String)
    case unexpected(String?)

    @inlinable
    public var isRetryable: Bool {
        switch self {
        case .serverError, .noConnection: return true
        default: return false
        }
    }
}

/// The seed's `validate(_:)`.
@inline(never)
public func validate(_ response: StubResponse) throws(NetworkError) -> StubResponse {
    switch response.statusCode {
    case 200...299: return response
    case 401: throw .unauthorized
    case 404: throw .notFound
    case 500...599: throw .serverError(response.statusCode)
    default: throw .unexpected(nil)
    }
}

/// The seed's `withRetry`, with `Task.sleep(for:)` replaced by the same
/// zero-delay clock the executor gets. Inlinable, so that the benchmarks
/// compile it into their loop as they would a function of their own.
@inlinable
public func withRetry<T: Sendable>(
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
