#if AsyncHTTPClient && Postgres  // the traits; without them RequestTool says how to build this tool
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyCommandSupport

/// A request described by plain values (URL, method, headers, body), as the
/// command line gives it; what `retry-policy request` sends.
struct PolicyRequest: Sendable {
    var url: String
    var method: String
    /// Headers in order; repeated names are kept.
    var headers: [(name: String, value: String)]
    var body: [UInt8]?
    /// Selects the policy's per-endpoint timeouts.
    var endpoint: String?

    init(
        url: String,
        method: String = "GET",
        headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil,
        endpoint: String? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.endpoint = endpoint
    }

    var clientRequest: HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = NIOHTTP1.HTTPMethod(rawValue: method.uppercased())
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        return request
    }
}

extension RetryingHTTPClient {
    /// Sends a ``PolicyRequest`` under the policy.
    func perform<G: RandomNumberGenerator>(
        _ request: PolicyRequest,
        using generator: inout G
    ) async throws(RetryFailure) -> HTTPResponse {
        try await execute(request.clientRequest, endpoint: request.endpoint, using: &generator)
    }

    func perform(_ request: PolicyRequest) async throws(RetryFailure) -> HTTPResponse {
        var generator = SystemRandomNumberGenerator()
        return try await perform(request, using: &generator)
    }
}

extension RetryingHTTPClient where C == ContinuousClock {
    /// Performs one request under `policy`. Uses its own `HTTPClient` with
    /// ``recommendedConfiguration`` (shut down before returning) unless
    /// `client` is given. `observer` receives the timeline (print each
    /// event's `description` for `--verbose`); `seed` makes the jitter
    /// reproducible. `decider`, when given, must be built from `policy`
    /// (for instance over a shared `RetryStateStore`);
    /// otherwise a fresh one is made. `tracing` receives the spans.
    static func perform(
        _ request: PolicyRequest,
        policy: Policy,
        decider: RetryDecider? = nil,
        client: HTTPClient? = nil,
        seed: UInt64? = nil,
        observer: RetryObserver? = nil,
        tracing: RetryTracing? = nil
    ) async throws(RetryFailure) -> HTTPResponse {
        let owned = client == nil ? HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: recommendedConfiguration) : nil
        let retrying = RetryingHTTPClient(
            client: client ?? owned!,
            executor: RetryExecutor(decider: decider ?? RetryDecider(policy: policy), observer: observer, tracing: tracing))
        let result: Result<HTTPResponse, RetryFailure>
        if let seed {
            var generator = SplitMix64(seed: seed)
            do { result = .success(try await retrying.perform(request, using: &generator)) } catch { result = .failure(error) }
        } else {
            do { result = .success(try await retrying.perform(request)) } catch { result = .failure(error) }
        }
        try? await owned?.shutdown()
        return try result.get()
    }
}
#endif
