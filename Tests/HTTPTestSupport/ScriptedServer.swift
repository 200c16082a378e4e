#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import RetryPolicyCore

/// A loopback server that plays a script of `ServerAction`s, one per
/// request, as the conformance suite drives it: `ScriptedHTTPServer`, or a
/// gRPC server playing the same script through a stated mapping.
///
/// Besides what it received, a server says how its protocol shows what
/// the script meant, so that one case states one expectation for both: the
/// outcome the policy sees for a status, the status a failure reports.
public protocol ScriptedServer: Sendable {
    /// Where the adapter sends its requests (scheme, host and port).
    var url: String { get }
    var requestCount: Int { get }
    /// The path of each request received.
    var received: [String] { get }
    /// The method of each request received.
    var methods: [String] { get }
    /// The body of each request received.
    var bodies: [[UInt8]] { get }
    /// The headers of each request received, by lowercased name.
    var headers: [[String: String]] { get }
    /// How many attempts came before each request received, as the
    /// request announces it (gRFC A6's `grpc-previous-rpc-attempts`);
    /// `nil` for a request that announces none.
    var announcedEarlierAttempts: [Int?] { get }

    /// Returns once `count` requests have arrived, or as soon as the
    /// calling task is cancelled.
    func requests(atLeast count: Int) async
    /// Returns once the client has given up on `count` requests the
    /// server held unanswered (`hang`).
    func abandonedHangs(atLeast count: Int) async
    func shutdown() async throws

    /// The outcome the policy sees for a response with HTTP `status`.
    func outcome(status: Int) -> AttemptOutcome
    /// The outcome of a connection reset in the middle of a response.
    var connectionLostOutcome: AttemptOutcome { get }
    /// The HTTP status `error` reports, read through the server's mapping.
    func statusCode(of error: SDKError) -> Int?
    /// The `http.response.status_code` dimension of the attempts counter
    /// for an attempt answered with `status`.
    func metricStatus(_ status: Int) -> String
    /// The request span's attribute that names the request sent to `path`.
    func requestSpanTarget(path: String) -> (attribute: String, value: String)
    /// What ``announcedEarlierAttempts`` holds after `attempts` attempts of
    /// one request.
    func expectedEarlierAttempts(after attempts: Int) -> [Int?]
}

extension ScriptedHTTPServer: ScriptedServer {
    public func outcome(status: Int) -> AttemptOutcome { .status(status) }
    public var connectionLostOutcome: AttemptOutcome { .transport(.connectionLost) }
    public func statusCode(of error: SDKError) -> Int? { error.statusCode }
    public func metricStatus(_ status: Int) -> String { String(status) }
    public func requestSpanTarget(path: String) -> (attribute: String, value: String) { ("url.full", url + path) }
    /// HTTP has no header for it.
    public var announcedEarlierAttempts: [Int?] { Array(repeating: nil, count: requestCount) }
    public func expectedEarlierAttempts(after attempts: Int) -> [Int?] { Array(repeating: nil, count: attempts) }
}
#endif
