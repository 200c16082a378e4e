#if AsyncHTTPClient && OpenAPI  // the traits; these tests need SwiftNIO, AsyncHTTPClient and swift-openapi-runtime
import Foundation
import HTTPTestSupport
import Logging
import OpenAPIRuntime
import OpenAPITestClient
import OpenAPIURLSession
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyOpenAPI
import RetryPolicyURLSession
import Testing

// The complete example of docs/openapi.md, compiled and run here so the
// documentation cannot drift from the API.

struct Cinema: Sendable {
    let client: Client

    init(serverURL: URL, movies: Policy, payments: Policy, telemetry: RetryTelemetry? = nil) {
        let retrying = RetryingMiddleware(
            policies: OperationPolicies(["createOrder": payments], default: movies),
            // URLSessionTransport throws URLError: read it as RetryingURLSession does.
            classifier: .urlSession,
            telemetry: telemetry,
            // The payments server deduplicates by Idempotency-Key.
            idempotencyKeys: .generated,
            logger: Logger(label: "cinema.retry"))
        client = Client(serverURL: serverURL, transport: URLSessionTransport(), middlewares: [retrying])
    }

    func title(ofMovie id: Int) async throws -> String? {
        switch try await client.getMovie(path: .init(id: id)) {
        case .ok(let ok): return try ok.body.json.title
        case .notFound: return nil
        case .undocumented(let status, _): throw CinemaError.status(status)
        }
    }

    enum CinemaError: Error { case status(Int) }
}

/// The page's second snippet: the policy's failure inside `ClientError`.
func failureReport(_ cinema: Cinema) async -> String? {
    do {
        _ = try await cinema.client.getMovie(path: .init(id: 550))
    } catch let error as ClientError {
        if let failure = error.underlyingError as? RetryFailure {
            return "\(failure.reason) \(failure.error.kind) \(failure.attempts.count)"
        }
    } catch {}
    return nil
}

@Suite("Documentation: the OpenAPI page's example", .serialized)
struct OpenAPIDocumentationExample {
    /// No backoff waits in these scripts, so the example's continuous
    /// clock never sleeps.
    static let movies = Policy(
        name: "movies", attempts: 3,
        backoff: Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .none),
        rules: [
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(statuses: [.code(404)], error: .notFound, action: .stop),
        ],
        defaultRule: DefaultRule(error: .internalError, action: .stop))
    static let payments = Policy(
        name: "payments", attempts: 2, idempotency: Idempotency(retryableMethods: [.get], honorIdempotentRequests: true),
        defaultRule: DefaultRule(error: .internalError, action: .stop))

    @Test("a movie's title, a missing movie, and a refused port reported inside ClientError")
    func cinema() async throws {
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 200, headers: [("Content-Type", "application/json")], body: #"{"id":550,"title":"Fight Club"}"#),
            .respond(status: 404),
        ])
        defer { Task { try await server.shutdown() } }
        let cinema = Cinema(serverURL: URL(string: server.url)!, movies: Self.movies, payments: Self.payments)
        #expect(try await cinema.title(ofMovie: 550) == "Fight Club")
        #expect(try await cinema.title(ofMovie: 404) == nil)

        let port = try await ScriptedHTTPServer.refusedPort()
        let refused = Cinema(
            serverURL: URL(string: "http://127.0.0.1:\(port)")!, movies: Self.movies, payments: Self.payments)
        #expect(await failureReport(refused) == "not_retryable internal_error 1")
    }
}
#endif
