#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import HTTPTestSupport
import NIOCore
import NIOHTTP1
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting

/// One client for every AsyncHTTPClient-based conformance, configured as
/// the decorator recommends (no connection retries of its own).
let conformanceHTTPClient = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: RetryingHTTPClient<ManualClock>.recommendedConfiguration)

/// `RetryingHTTPClient`, the decorator around AsyncHTTPClient.
struct AsyncHTTPClientAdapter: AdapterUnderTest {
    var description: String { "RetryingHTTPClient" }
    var classifier: ErrorClassifier { .asyncHTTPClient }

    func send(
        _ request: ConformanceRequest, on executor: RetryExecutor<ManualClock>
    ) async throws(RetryFailure) -> ConformanceResponse {
        let client = RetryingHTTPClient(client: conformanceHTTPClient, executor: executor)
        // AsyncHTTPClient cannot tell a streamed body from bytes: the caller
        // says that it cannot be sent twice.
        let response = try await client.execute(
            HTTPClientRequest(request), endpoint: request.endpoint, retryability: request.bodyIsOneShot ? .unsafe : nil,
            returningLastResponse: request.returningLastResponse)
        return ConformanceResponse(status: response.statusCode, body: String(buffer: response.body))
    }
}

extension HTTPClientRequest {
    init(_ request: ConformanceRequest) {
        self.init(url: request.url)
        method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        if let body = request.body {
            if request.bodyIsOneShot {
                let chunks = AsyncStream<ByteBuffer> { continuation in
                    for chunk in request.bodyChunks { continuation.yield(ByteBuffer(bytes: chunk)) }
                    continuation.finish()
                }
                self.body = .stream(chunks, length: .known(Int64(body.count)))
            } else {
                self.body = .bytes(ByteBuffer(bytes: body))
            }
        }
    }
}
#endif
