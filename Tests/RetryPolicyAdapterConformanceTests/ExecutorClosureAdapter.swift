#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import HTTPTestSupport
import NIOCore
import NIOHTTP1
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting

/// The executor itself, driven by a closure that sends one attempt with a
/// plain `HTTPClient`, as app code without a decorator writes it: the
/// client's error mapping in front of the executor's classifier, an
/// `Idempotency-Key` header read as the caller marking the request
/// idempotent, the body read inside the attempt.
struct ExecutorClosureAdapter: AdapterUnderTest {
    var description: String { "RetryExecutor.runConcurrently" }
    var classifier: ErrorClassifier { .asyncHTTPClient }

    struct Reply: RetryableResponse {
        var status: Int
        var headers: HTTPHeaders
        var body: String
        var statusCode: Int { status }
        func headerValue(named name: String) -> String? { headers.first(name: name) }
    }

    func send(
        _ request: ConformanceRequest, on executor: RetryExecutor<ManualClock>
    ) async throws(RetryFailure) -> ConformanceResponse {
        var executor = executor
        executor.classifier = classifier.chained(with: executor.classifier)
        let retryRequest = RetryRequest(
            method: request.method,
            retryability: request.bodyIsOneShot ? .unsafe : request.hasIdempotencyKey ? .idempotent : .asPolicySays,
            endpoint: request.endpoint)
        let clientRequest = HTTPClientRequest(request)
        let reply = try await executor.runConcurrently(
            retryRequest, returningLastResponse: request.returningLastResponse
        ) { _ in
            let response = try await conformanceHTTPClient.execute(clientRequest, deadline: .distantFuture)
            let body = try await response.body.collect(upTo: 1 << 20)
            return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
        }
        return ConformanceResponse(status: reply.status, body: reply.body)
    }
}
#endif
