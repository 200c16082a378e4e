#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting

/// What an adapter over the executor provides to the conformance suite
/// (`RetryPolicyAdapterConformanceTests`): the suite scripts a loopback
/// server, configures an executor, and holds every adapter to the same
/// contract through this one requirement.
///
/// A conformance builds the adapter on `executor` as an app would, keeping
/// its policy, clock (a `ManualClock`, so waits and time limits are driven
/// by the test), wall-clock anchor and observer, then sends `request` once
/// through it and reports the response it returns or the `RetryFailure` it
/// throws. It adds nothing of its own between the adapter and the suite:
/// no retries, no error mapping beyond the adapter's.
public protocol AdapterUnderTest: Sendable, CustomStringConvertible {
    /// How the adapter reads its client's errors (the classifier it puts
    /// in front of the executor's), so that the suite can tell what the
    /// client threw when the executor reports a failure.
    var classifier: ErrorClassifier { get }

    func send(
        _ request: ConformanceRequest, on executor: RetryExecutor<ManualClock>
    ) async throws(RetryFailure) -> ConformanceResponse

    /// Starts the server the adapter talks to, playing `script`: by
    /// default a `ScriptedHTTPServer`.
    func startServer(_ script: [ServerAction]) async throws -> any ScriptedServer

    /// A reason for each contract case (by its test function's name) that
    /// has no form in the adapter's protocol, so that the case is not run
    /// for it; by default none.
    var inapplicableCases: [String: String] { get }
}

extension AdapterUnderTest {
    public func startServer(_ script: [ServerAction]) async throws -> any ScriptedServer {
        try await ScriptedHTTPServer.start(script)
    }

    public var inapplicableCases: [String: String] { [:] }
}

/// One request, as every adapter can express it.
public struct ConformanceRequest: Sendable {
    public var method: HTTPMethod
    public var url: String
    public var headers: [(name: String, value: String)]
    /// Sent on every attempt; `nil` sends none.
    public var body: [UInt8]?
    /// Sends ``body`` as a one-shot stream, which cannot be sent twice,
    /// as each client expresses one (an `InputStream`, a streamed body).
    public var bodyIsOneShot: Bool
    /// Selects the policy's per-endpoint time limits.
    public var endpoint: String?
    /// When the policy stops on a response, the adapter returns it instead
    /// of throwing.
    public var returningLastResponse: Bool

    public init(
        method: HTTPMethod = .get, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil,
        bodyIsOneShot: Bool = false, endpoint: String? = nil, returningLastResponse: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyIsOneShot = bodyIsOneShot
        self.endpoint = endpoint
        self.returningLastResponse = returningLastResponse
    }

    /// The body in pieces of 512 bytes, as a one-shot stream delivers it.
    public var bodyChunks: [[UInt8]] {
        guard let body else { return [] }
        return stride(from: 0, to: body.count, by: 512).map { Array(body[$0..<min($0 + 512, body.count)]) }
    }

    /// Whether the request carries `Idempotency-Key`, which every adapter
    /// reads as the caller marking it idempotent.
    public var hasIdempotencyKey: Bool {
        headers.contains { $0.name.lowercased() == "idempotency-key" }
    }
}

/// The response an adapter returned.
public struct ConformanceResponse: Sendable, Hashable {
    public var status: Int
    public var body: String

    public init(status: Int, body: String) {
        self.status = status
        self.body = body
    }
}
#endif
