#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTestSupport
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting
import RetryPolicyURLSession

/// A session without a cache or cookies, so that every attempt reaches
/// the server.
let conformanceURLSession = URLSession(configuration: .ephemeral)

/// `RetryingURLSession`, the decorator around URLSession
/// (FoundationNetworking on Linux).
struct URLSessionAdapter: AdapterUnderTest {
    var description: String { "RetryingURLSession" }
    var classifier: ErrorClassifier { .urlSession }

    func send(
        _ request: ConformanceRequest, on executor: RetryExecutor<ManualClock>
    ) async throws(RetryFailure) -> ConformanceResponse {
        let session = RetryingURLSession(session: conformanceURLSession, executor: executor)
        var urlRequest = URLRequest(url: URL(string: request.url)!)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headers { urlRequest.addValue(value, forHTTPHeaderField: name) }
        if request.bodyIsOneShot {
            urlRequest.httpBodyStream = request.body.map { InputStream(data: Data($0)) }
        } else {
            urlRequest.httpBody = request.body.map { Data($0) }
        }
        // Only a backstop: the policy's time limits run on the test clock
        // and end an attempt by cancelling it.
        urlRequest.timeoutInterval = 600
        let (data, response) = try await session.data(
            for: urlRequest, endpoint: request.endpoint, returningLastResponse: request.returningLastResponse)
        return ConformanceResponse(status: response.statusCode, body: String(decoding: data, as: UTF8.self))
    }
}
#endif
