#if AsyncHTTPClient && OpenAPI  // the traits; these tests need SwiftNIO, AsyncHTTPClient and swift-openapi-runtime
import Foundation
import HTTPTestSupport
import HTTPTypes
import OpenAPIAsyncHTTPClient
@_spi(Generated) import OpenAPIRuntime
import OpenAPIURLSession
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyOpenAPI
import RetryPolicyTesting
import RetryPolicyURLSession

/// `RetryingMiddleware` in a client as swift-openapi-generator's code
/// makes it (`UniversalClient`, which every generated `Client` wraps),
/// over one of the two transports.
struct OpenAPIAdapter: AdapterUnderTest {
    enum Transport: Sendable {
        case urlSession, asyncHTTPClient
    }

    var transport: Transport

    var description: String {
        switch transport {
        case .urlSession: "RetryingMiddleware over URLSessionTransport"
        case .asyncHTTPClient: "RetryingMiddleware over AsyncHTTPClientTransport"
        }
    }

    var transportClassifier: ErrorClassifier {
        switch transport {
        case .urlSession: .urlSession
        case .asyncHTTPClient: .asyncHTTPClient
        }
    }

    var classifier: ErrorClassifier { .openAPI(transport: transportClassifier) }

    /// One-shot bodies longer than this are sent once; the contract's are.
    static let replayBufferBytes = 1024

    func clientTransport() -> any ClientTransport {
        switch transport {
        case .urlSession:
            URLSessionTransport(configuration: .init(session: conformanceURLSession))
        case .asyncHTTPClient:
            // Only a backstop: the policy's time limits run on the test clock.
            AsyncHTTPClientTransport(configuration: .init(client: conformanceHTTPClient, timeout: .minutes(10)))
        }
    }

    func send(
        _ request: ConformanceRequest, on executor: RetryExecutor<ManualClock>
    ) async throws(RetryFailure) -> ConformanceResponse {
        var executor = executor
        executor.classifier = transportClassifier.chained(with: executor.classifier)
        let decider = executor.decider
        let middleware = RetryingMiddleware(
            policies: OperationPolicies { _ in decider }, executor: executor,
            maxBufferedRequestBytes: Self.replayBufferBytes, returningLastResponse: request.returningLastResponse)
        let url = URL(string: request.url)!
        var server = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let path = (server.percentEncodedPath.isEmpty ? "/" : server.percentEncodedPath)
            + (server.percentEncodedQuery.map { "?" + $0 } ?? "")
        server.percentEncodedPath = ""
        server.percentEncodedQuery = nil
        let client = UniversalClient(serverURL: server.url!, transport: clientTransport(), middlewares: [middleware])

        var fields = HTTPFields()
        for (name, value) in request.headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let head = HTTPRequest(
            method: HTTPRequest.Method(request.method.rawValue)!, scheme: nil, authority: nil, path: path,
            headerFields: fields)
        let body: HTTPBody? = request.body.map { bytes in
            guard request.bodyIsOneShot else { return HTTPBody(bytes) }
            let chunks = request.bodyChunks
            let stream = AsyncThrowingStream<HTTPBody.ByteChunk, any Error> { continuation in
                for chunk in chunks { continuation.yield(chunk[...]) }
                continuation.finish()
            }
            return HTTPBody(stream, length: .unknown)
        }
        do {
            let (status, text) = try await client.send(
                input: (), forOperation: "conformance", serializer: { _ in (head, body) },
                deserializer: { response, body in
                    var bytes: ArraySlice<UInt8> = []
                    if let body { bytes = try await ArraySlice(collecting: body, upTo: 1 << 20) }
                    return (response.status.code, String(decoding: bytes, as: UTF8.self))
                })
            return ConformanceResponse(status: status, body: text)
        } catch let error as ClientError {
            // The generated client wraps what a middleware throws.
            if let failure = error.underlyingError as? RetryFailure { throw failure }
            throw RetryFailure(
                error: SDKError(kind: .internalError, detail: "\(error)"), reason: .notRetryable, underlyingError: error)
        } catch {
            throw RetryFailure(
                error: SDKError(kind: .internalError, detail: "\(error)"), reason: .notRetryable, underlyingError: error)
        }
    }
}
#endif
