#if AsyncHTTPClient && OpenAPI  // the traits; these tests need SwiftNIO, AsyncHTTPClient and swift-openapi-runtime
import Foundation
import HTTPTestSupport
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPITestClient
import OpenAPIURLSession
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyOpenAPI
import RetryPolicyTesting
import RetryPolicyURLSession
import Testing

/// `RetryingMiddleware` in the `Client` that swift-openapi-generator's
/// build plugin generates from `Tests/OpenAPITestClient/openapi.yaml`,
/// over one of the two transports, as an app builds one.
///
/// Each request goes through the generated operation for its method and
/// path (`OpenAPIOperation`), and the response is read back from that
/// operation's `Output`. A request no operation takes is recorded as an
/// issue and fails; it is never sent another way.
struct OpenAPIAdapter: AdapterUnderTest {
    enum Transport: Sendable {
        case urlSession, asyncHTTPClient
    }

    var transport: Transport

    var description: String {
        switch transport {
        case .urlSession: "RetryingMiddleware in a generated Client over URLSessionTransport"
        case .asyncHTTPClient: "RetryingMiddleware in a generated Client over AsyncHTTPClientTransport"
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
        let server: URL
        let operation: OpenAPIOperation
        do {
            (server, operation) = try OpenAPIOperation.matching(request)
        } catch {
            Issue.record("\(error)")
            throw RetryFailure(
                error: SDKError(kind: .internalError, detail: "\(error)"), reason: .notRetryable, underlyingError: error)
        }
        var executor = executor
        executor.classifier = transportClassifier.chained(with: executor.classifier)
        let decider = executor.decider
        let middleware = RetryingMiddleware(
            policies: OperationPolicies { _ in decider }, executor: executor,
            maxBufferedRequestBytes: Self.replayBufferBytes, returningLastResponse: request.returningLastResponse)
        let client = Client(
            serverURL: server, configuration: Configuration(jsonEncodingOptions: OpenAPIOperation.jsonEncodingOptions),
            transport: clientTransport(), middlewares: [middleware])
        do {
            return try await operation.send(through: client)
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
