#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTestSupport
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyStore
import RetryPolicyTesting
import RetryPolicyURLSession
import Testing

// The code of docs/executor.md, compiled and run here so the documentation
// cannot drift from the API.

// MARK: Embedding in an app

/// The ad SDK's network layer: one request per auction, judged by the policy.
struct AuctionClient: Sendable {
    let session: RetryingURLSession<ContinuousClock>
    let baseURL: String

    init(policy: Policy, baseURL: String = "https://auction.example.com") {
        session = RetryingURLSession(session: .shared, policy: policy)
        self.baseURL = baseURL
    }

    enum AuctionResult: Sendable {
        case ad(Data)
        case noFill
        case rateLimited(retryAfter: Duration?)
        case failed(SDKError)
    }

    func fetchAuction(placement: String) async -> AuctionResult {
        let url = URL(string: "\(baseURL)/v1/auction?placement=\(placement)")!
        do {
            let (data, _) = try await session.data(for: URLRequest(url: url), endpoint: placement)
            return .ad(data)
        } catch {
            switch error.kind {
            case .noFill: return .noFill
            case .status429: return .rateLimited(retryAfter: error.error.retryAfter)
            default: return .failed(error.error)
            }
        }
    }
}

enum NetworkError: Error { case serverError(Int), noConnection, decodingFailed }

let networkErrorClassifier = ErrorClassifier { error in
    switch error as? NetworkError {
    case .serverError(let code): .status(code)
    case .noConnection: .transport(.offline)
    case .decodingFailed: .transport(.decoding)
    case nil: nil
    }
}

struct Profile: Sendable { var name: String }
protocol ProfileAPI: Sendable { func fetchProfile() async throws -> Profile }

func loadProfile(executor: RetryExecutor<ContinuousClock>, api: some ProfileAPI) async throws(RetryFailure) -> Profile {
    var executor = executor
    executor.classifier = networkErrorClassifier
    return try await executor.run(RetryRequest(method: .get, endpoint: "profile")) { _ in
        try await api.fetchProfile()
    }
}

// MARK: Embedding in a service

enum ServiceError: Error { case noPolicy(String) }

struct MovieService: Sendable {
    let policies: PolicyStore
    let client: HTTPClient
    let baseURL: String
    let token: String
    let telemetry = RetryTelemetry()

    func movie(id: Int) async throws -> HTTPResponse {
        guard let decider = policies.decider(named: "tmdb") else {
            throw ServiceError.noPolicy("tmdb")
        }
        let retrying = RetryingHTTPClient(
            client: client,
            executor: RetryExecutor(decider: decider, telemetry: telemetry))
        var request = HTTPClientRequest(url: "\(baseURL)/3/movie/\(id)")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        return try await retrying.execute(request, endpoint: "movie")
    }
}

@Suite("The documentation's examples, run", .serialized)
struct DocumentationExamples {
    @Test("the app example maps a 204 to noFill through the shipped iOS SDK policy")
    func appExample() async throws {
        var policy = try #require(
            PolicyStore(directory: Self.policiesDirectory, loader: .yaml()).decider(named: "ios-sdk")?.policy)
        // This test is about the status mapping, not the 10 s budget: a
        // loaded machine (sanitizers, parallel suites) can take longer than
        // that for URLSession's first request, so the budget is lifted here.
        policy.timeouts = TimeoutBudget()
        policy.endpoints = [:]
        let server = try await ScriptedHTTPServer.start([.respond(status: 204)])
        defer { Task { try await server.shutdown() } }
        let client = AuctionClient(policy: policy, baseURL: server.url)
        let result = await client.fetchAuction(placement: "main_banner")
        guard case .noFill = result else {
            Issue.record("expected noFill, got \(result)")
            return
        }
        #expect(server.received == ["/v1/auction?placement=main_banner"])
    }

    @Test("the classifier example retries an app's own server error")
    func classifierExample() async throws {
        struct FlakyAPI: ProfileAPI {
            let calls = Counter()
            func fetchProfile() async throws -> Profile {
                if calls.increment() == 1 { throw NetworkError.serverError(503) }
                return Profile(name: "Ada")
            }
        }
        let policy = Policy(
            name: "profile", attempts: 2,
            rules: [Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry)])
        let api = FlakyAPI()
        let profile = try await loadProfile(executor: RetryExecutor(decider: RetryDecider(policy: policy)), api: api)
        #expect(profile.name == "Ada")
        #expect(api.calls.value == 2)
    }

    @Test("the service example serves the shipped tmdb policy from a PolicyStore")
    func serviceExample() async throws {
        let store = PolicyStore(directory: Self.policiesDirectory, loader: .yaml())
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 429, headers: [("Retry-After", "0")]), .respond(status: 200, body: "{\"id\":550}"),
        ])
        defer { Task { try await server.shutdown() } }
        let service = MovieService(policies: store, client: testHTTPClient, baseURL: server.url, token: "t")
        let response = try await service.movie(id: 550)
        #expect(String(buffer: response.body) == "{\"id\":550}")
        #expect(server.received == ["/3/movie/550", "/3/movie/550"])
    }

    @Test("the testing example: a manual clock makes a one-second backoff instant and exact")
    func testingExample() async throws {
        struct FlakyAPI: Sendable {
            let calls = Counter()
            func fetch() async throws -> String {
                if calls.increment() == 1 { throw TransportError(.connectionLost) }
                return "fresh"
            }
        }
        let api = FlakyAPI()
        let policy = Policy(
            name: "example", attempts: 2, backoff: Backoff(initial: .seconds(1), max: .seconds(1), jitter: .none),
            rules: [Rule(transports: [.connectionLost], error: .networkError, action: .retry)])

        let clock = ManualClock()
        let executor = RetryExecutor(decider: RetryDecider(policy: policy), clock: clock)
        let task = Task { try await executor.run { _ in try await api.fetch() } }
        await clock.sleepers(atLeast: 1)
        #expect(clock.now.duration(to: clock.nextDeadline!) == .seconds(1))
        clock.advance(by: .seconds(1))
        let value = try await task.value
        #expect(value == "fresh")
    }

    static var policiesDirectory: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("policies").path
    }
}

/// A thread-safe call counter.
final class Counter: Sendable {
    private let storage = LockedValue(0)
    /// Returns the new count.
    @discardableResult func increment() -> Int { storage.withLock { $0 += 1; return $0 } }
    var value: Int { storage.withLock { $0 } }
}

#endif
