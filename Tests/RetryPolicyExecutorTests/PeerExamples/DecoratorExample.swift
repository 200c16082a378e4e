// docs/executor.md begin: decorator
import RetryPolicyCore
import RetryPolicyExecutor

/// Seed 000's shape: a client that performs requests, and a decorator
/// that retries them as the policy says.
protocol HTTPClient {
    func perform(request: APIRequest) async throws -> APIResponse
}

struct APIRequest: Sendable {
    var method: HTTPMethod = .get
    var path: String
    /// A GET that changes state (one that clears a list) must not be sent twice.
    var changesState = false
}

struct APIResponse: RetryableResponse {
    var statusCode: Int
    var headers: [String: String] = [:]
    var body = ""

    func headerValue(named name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

struct RetryHTTPClient<Wrapped: HTTPClient, C: Clock<Duration>>: HTTPClient {
    let wrapped: Wrapped
    let executor: RetryExecutor<C>

    /// Retries what the policy retries. When the policy gives up on a
    /// response, that response is returned, as the client always did; when
    /// it gives up on a transport failure, `RetryFailure` is thrown.
    func perform(request: APIRequest) async throws -> APIResponse {
        let retryRequest = RetryRequest(
            method: request.method, retryability: request.changesState ? .unsafe : .asPolicySays)
        return try await executor.run(
            retryRequest,
            classify: { result in
                // A 200 whose body is a CDN's HTML error page is the
                // policy's `malformed_body`, which it retries.
                guard case .success(let response) = result, response.statusCode == 200,
                    response.body.hasPrefix("<!DOCTYPE html")
                else { return nil }
                return .condition("malformed_body")
            },
            returningLastResponse: true
        ) { _ in
            try await wrapped.perform(request: request)
        }
    }
}
// docs/executor.md end: decorator
