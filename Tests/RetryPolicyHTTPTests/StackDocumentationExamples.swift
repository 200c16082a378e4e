#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTestSupport
import NIOCore
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyURLSession
import Testing

// The complete examples of docs/urlsession.md and docs/asynchttpclient.md,
// compiled and run here so the documentation cannot drift from the API.

// MARK: docs/urlsession.md

struct Catalogue: Sendable {
    let session: RetryingURLSession<ContinuousClock>
    let baseURL: URL

    init(baseURL: URL, policy: Policy, observer: RetryObserver? = nil) {
        // No cache or cookies between attempts; the policy's per-attempt
        // limit cancels an attempt, so URLSession's own timeout is a backstop.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        session = RetryingURLSession(
            session: URLSession(configuration: configuration), policy: policy, observer: observer,
            telemetry: RetryTelemetry())
        self.baseURL = baseURL
    }

    enum Failure: Error, Equatable {
        case notFound
        case rateLimited(retryAfter: Duration?)
        case unavailable(SDKError.Kind)
    }

    func item(_ id: Int) async throws(Failure) -> Data {
        let request = URLRequest(url: baseURL.appendingPathComponent("items/\(id)"))
        do {
            return try await session.data(for: request, endpoint: "item").0
        } catch {
            switch error.error.kind {
            case .notFound: throw .notFound
            case .status429: throw .rateLimited(retryAfter: error.error.retryAfter)
            default: throw .unavailable(error.error.kind)
            }
        }
    }

    /// A `POST` the server deduplicates by `Idempotency-Key`: the same key
    /// goes with every attempt, so the policy may retry it.
    func upload(_ body: Data, key: String) async throws(RetryFailure) -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent("items"))
        request.httpMethod = "POST"
        request.setValue(key, forHTTPHeaderField: "Idempotency-Key")
        request.httpBody = body
        return try await session.data(for: request, endpoint: "upload").1.statusCode
    }
}

// MARK: docs/asynchttpclient.md

struct Inventory: Sendable {
    let client: RetryingHTTPClient<ContinuousClock>
    let baseURL: String

    /// `httpClient` made with `RetryingHTTPClient.recommendedConfiguration`.
    init(httpClient: HTTPClient, baseURL: String, policy: Policy) {
        client = RetryingHTTPClient(client: httpClient, policy: policy, telemetry: RetryTelemetry())
        self.baseURL = baseURL
    }

    func stock(of sku: String) async throws(RetryFailure) -> String {
        let response = try await client.execute(HTTPClientRequest(url: "\(baseURL)/stock/\(sku)"), endpoint: "stock")
        return String(buffer: response.body)
    }

    /// A body streamed from elsewhere cannot be sent twice: say so, and the
    /// policy sends it once.
    func importCSV(_ lines: AsyncStream<ByteBuffer>, length: Int64) async throws(RetryFailure) -> Int {
        var request = HTTPClientRequest(url: "\(baseURL)/imports")
        request.method = .POST
        request.body = .stream(lines, length: .known(length))
        return try await client.execute(request, endpoint: "import", retryability: .unsafe).statusCode
    }
}

// At startup: one client, connection establishment tried once per attempt.
let httpClient = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: RetryingHTTPClient<ContinuousClock>.recommendedConfiguration)

// MARK: The examples, run

@Suite("Documentation: the URLSession and AsyncHTTPClient pages' examples", .serialized)
struct StackDocumentationExamples {
    /// Nothing in these runs waits: every script stops or succeeds without
    /// a backoff, so the continuous clock of the examples never sleeps.
    static let policy = Policy(
        name: "catalogue",
        attempts: 3,
        backoff: Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .none),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(10), aboveCap: .stop),
        rules: [
            Rule(statuses: [.code(429)], error: .status429, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(statuses: [.code(404)], error: .notFound, action: .stop),
            Rule(statuses: [.statusClass(4)], error: .networkError, action: .stop),
        ],
        defaultRule: DefaultRule(error: .internalError, action: .stop))

    @Test("the URLSession page's catalogue: an item, a 404, a long Retry-After, a keyed upload")
    func catalogue() async throws {
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 200, body: "item 7"),
            .respond(status: 404),
            .respond(status: 429, headers: [("Retry-After", "120")]),
            .respond(status: 201),
        ])
        defer { Task { try await server.shutdown() } }
        let catalogue = Catalogue(baseURL: URL(string: server.url)!, policy: Self.policy)
        #expect(String(decoding: try await catalogue.item(7), as: UTF8.self) == "item 7")
        await #expect(throws: Catalogue.Failure.notFound) { try await catalogue.item(8) }
        await #expect(throws: Catalogue.Failure.rateLimited(retryAfter: .seconds(120))) { try await catalogue.item(9) }
        #expect(try await catalogue.upload(Data("poster".utf8), key: "upload-1") == 201)
        #expect(server.received == ["/items/7", "/items/8", "/items/9", "/items"])
        #expect(server.idempotencyKeys == [nil, nil, nil, "upload-1"])
    }

    @Test("the AsyncHTTPClient page's inventory: a read, and a streamed import sent once")
    func inventory() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 200, body: "12"), .respond(status: 503)])
        defer { Task { try await server.shutdown() } }
        let inventory = Inventory(httpClient: httpClient, baseURL: server.url, policy: Self.policy)
        #expect(try await inventory.stock(of: "A-1") == "12")
        let lines = AsyncStream<ByteBuffer> { continuation in
            continuation.yield(ByteBuffer(string: "sku,count\n"))
            continuation.yield(ByteBuffer(string: "A-1,12\n"))
            continuation.finish()
        }
        let failure = await #expect(throws: RetryFailure.self) { try await inventory.importCSV(lines, length: 17) }
        #expect(failure?.reason == .notIdempotent)
        #expect(server.methods == ["GET", "POST"])
        #expect(server.bodies.last == Array("sku,count\nA-1,12\n".utf8))
    }
}
#endif
