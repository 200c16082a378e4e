#if OpenAPI  // the trait; without it this module is empty
import HTTPTypes
import OpenAPIRuntime
import RetryPolicyExecutor

/// One operation's response as the policy judges it: status and headers
/// (`Retry-After` among them), and the body, read inside the attempt unless
/// the middleware streams bodies. A `RetryFailure` that stopped on a
/// response carries it as `lastResponse`.
public struct OpenAPIResponse: RetryableResponse {
    public var response: HTTPResponse
    public var body: HTTPBody?

    public init(response: HTTPResponse, body: HTTPBody?) {
        self.response = response
        self.body = body
    }

    public var statusCode: Int { response.status.code }

    public func headerValue(named name: String) -> String? {
        HTTPField.Name(name).flatMap { response.headerFields[$0] }
    }
}
#endif
