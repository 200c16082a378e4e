#if AsyncHTTPClient && OpenAPI  // the traits; these tests need SwiftNIO, AsyncHTTPClient and swift-openapi-runtime
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OpenAPIURLSession
import RetryPolicyAsyncHTTPClient
import RetryPolicyExecutor
import RetryPolicyTesting
import RetryPolicyURLSession

/// The two transports a generated client is given, each with the error
/// classifier of its client.
enum OpenAPITransport: String, Sendable, CaseIterable, CustomStringConvertible {
    case urlSession = "URLSessionTransport"
    case asyncHTTPClient = "AsyncHTTPClientTransport"

    var description: String { rawValue }

    static let session = URLSession(configuration: .ephemeral)
    static let httpClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: RetryingHTTPClient<ManualClock>.recommendedConfiguration)

    var transport: any ClientTransport {
        switch self {
        case .urlSession: URLSessionTransport(configuration: .init(session: Self.session))
        case .asyncHTTPClient: AsyncHTTPClientTransport(configuration: .init(client: Self.httpClient, timeout: .minutes(10)))
        }
    }

    var classifier: ErrorClassifier {
        switch self {
        case .urlSession: .urlSession
        case .asyncHTTPClient: .asyncHTTPClient
        }
    }
}
#endif
