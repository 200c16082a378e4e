#if AsyncHTTPClient && OpenAPI  // the traits; these tests need SwiftNIO, AsyncHTTPClient and swift-openapi-runtime
import Foundation
import HTTPTestSupport
import Logging
import OpenAPIRuntime
import OpenAPITestClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyOpenAPI
import RetryPolicyStore
import RetryPolicyTesting
import Testing

/// The client swift-openapi-generator's build plugin generates from
/// `Tests/OpenAPITestClient/openapi.yaml`,
/// with `RetryingMiddleware`, against a server on 127.0.0.1, over both
/// transports. Waits run on a `ManualClock`.
@Suite("OpenAPI: a generated client under policies", .serialized, .timeLimit(.minutes(2)))
struct GeneratedClientTests {
    let clock = ManualClock()
    let log = EventLog()
    static let origin = Timestamp(secondsSince1970: 1_750_000_000)

    static let retrying = Policy(
        name: "cinema",
        attempts: 3,
        backoff: Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .none),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(10), aboveCap: .stop),
        rules: [
            Rule(statuses: [.code(429)], error: .status429, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
            Rule(statuses: [.statusClass(4)], error: .networkError, action: .stop),
        ],
        defaultRule: DefaultRule(error: .internalError, action: .stop))

    func middleware(
        _ policies: OperationPolicies, over transport: OpenAPITransport, idempotencyKeys: IdempotencyKeys = .callers,
        maxBufferedRequestBytes: Int = 1 << 20, logger: Logger? = nil
    ) -> RetryingMiddleware<ManualClock> {
        RetryingMiddleware(
            policies: policies,
            executor: RetryExecutor(
                decider: RetryDecider(policy: Self.retrying), clock: clock, wallClockNow: Self.origin,
                classifier: transport.classifier, observer: log.observer, tracing: nil),
            maxBufferedRequestBytes: maxBufferedRequestBytes, idempotencyKeys: idempotencyKeys, logger: logger)
    }

    func client(_ middleware: RetryingMiddleware<ManualClock>, server: ScriptedHTTPServer, over transport: OpenAPITransport)
        -> Client
    {
        Client(serverURL: URL(string: server.url)!, transport: transport.transport, middlewares: [middleware])
    }

    static let movie = #"{"id":550,"title":"Fight Club"}"#
    static let json = [("Content-Type", "application/json")]

    @Test("503, then Retry-After, then the movie: the operation's policy retries to success", arguments: OpenAPITransport.allCases)
    func retriesToSuccess(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 503), .respond(status: 429, headers: [("Retry-After", "5")]),
            .respond(status: 200, headers: Self.json, body: Self.movie),
        ])
        defer { Task { try await server.shutdown() } }
        let client = client(middleware(OperationPolicies(["getMovie": Self.retrying]), over: transport), server: server, over: transport)
        let (output, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1, 2]) {
            await outcome { try await client.getMovie(path: .init(id: 550)) }
        }
        #expect(try output.get().ok.body.json == Components.Schemas.Movie(id: 550, title: "Fight Club"))
        #expect(server.received == Array(repeating: "/movies/550", count: 3))
        #expect(steps == [.seconds(1), .seconds(5)])
        #expect(log.waitCauses == [.backoff, .server])
        #expect(log.events.last == .succeeded(attempts: 3, elapsed: .seconds(6)))
    }

    @Test("an operation without a policy is sent once, and its response decoded", arguments: OpenAPITransport.allCases)
    func operationWithoutPolicy(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 201)])
        defer { Task { try await server.shutdown() } }
        let client = client(middleware(OperationPolicies(["getMovie": Self.retrying]), over: transport), server: server, over: transport)
        let output = try await client.createOrder(body: .json(.init(movie: 550, seats: 2)))
        guard case .undocumented(statusCode: 503, _) = output else {
            Issue.record("expected the 503, got \(output)")
            return
        }
        #expect(server.requestCount == 1)
        #expect(log.events.isEmpty)
    }

    @Test("the policy stops on a status: the generated client decodes the response it stopped on", arguments: OpenAPITransport.allCases)
    func lastResponseDecoded(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 404), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let client = client(middleware(.all(Self.retrying), over: transport), server: server, over: transport)
        let output = try await client.getMovie(path: .init(id: 404))
        guard case .notFound = output else {
            Issue.record("expected the 404, got \(output)")
            return
        }
        #expect(server.requestCount == 1)
    }

    @Test("a POST is not retried unless it carries an Idempotency-Key; the caller's key is sent on every attempt", arguments: OpenAPITransport.allCases, [false, true])
    func callersIdempotencyKey(transport: OpenAPITransport, withKey: Bool) async throws {
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 503), .respond(status: 201, headers: Self.json, body: #"{"movie":550,"seats":2}"#),
        ])
        defer { Task { try await server.shutdown() } }
        let client = client(middleware(.all(Self.retrying), over: transport), server: server, over: transport)
        let (output, _) = await drive(clock, server: server, requestsBeforeEachAdvance: withKey ? [1] : []) {
            await outcome {
                try await client.createOrder(
                    headers: .init(idempotencyKey: withKey ? "order-17" : nil), body: .json(.init(movie: 550, seats: 2)))
            }
        }
        if withKey {
            #expect(try output.get().created.body.json == .init(movie: 550, seats: 2))
            #expect(server.idempotencyKeys == ["order-17", "order-17"])
            #expect(server.bodies.count == 2 && server.bodies[0] == server.bodies[1])
        } else {
            guard case .undocumented(statusCode: 503, _) = try output.get() else {
                Issue.record("expected the 503, got \(output)")
                return
            }
            #expect(server.idempotencyKeys == [nil])
        }
    }

    @Test("generated keys: one Idempotency-Key, made once, on every attempt of a POST", arguments: OpenAPITransport.allCases)
    func generatedIdempotencyKey(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 503), .respond(status: 502),
            .respond(status: 201, headers: Self.json, body: #"{"movie":550,"seats":2}"#),
        ])
        defer { Task { try await server.shutdown() } }
        let made = LockedValue(0)
        let keys = IdempotencyKeys.generated { made.withLock { $0 += 1; return "key-\($0)" } }
        let client = client(middleware(.all(Self.retrying), over: transport, idempotencyKeys: keys), server: server, over: transport)
        let (output, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1, 2]) {
            await outcome { try await client.createOrder(body: .json(.init(movie: 550, seats: 2))) }
        }
        #expect(try output.get().created.body.json == .init(movie: 550, seats: 2))
        #expect(server.idempotencyKeys == ["key-1", "key-1", "key-1"])
        #expect(made.withLock { $0 } == 1)
    }

    @Test("a GET gets no generated key: the policy retries it without one", arguments: OpenAPITransport.allCases)
    func noKeyForIdempotentMethod(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 200, headers: Self.json, body: Self.movie)])
        defer { Task { try await server.shutdown() } }
        let client = client(middleware(.all(Self.retrying), over: transport, idempotencyKeys: .generated), server: server, over: transport)
        _ = try await client.getMovie(path: .init(id: 550)).ok
        #expect(server.idempotencyKeys == [nil])
    }

    @Test("a one-shot body within the replay buffer is read once and sent whole on every attempt", arguments: OpenAPITransport.allCases)
    func oneShotBodyReplayed(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 204)])
        defer { Task { try await server.shutdown() } }
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let client = client(
            middleware(.all(Self.retrying), over: transport, maxBufferedRequestBytes: 4096), server: server, over: transport)
        let (output, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await outcome { try await client.uploadPoster(path: .init(name: "fight-club"), body: .binary(.oneShot(bytes))) }
        }
        guard case .noContent = try output.get() else {
            Issue.record("expected 204, got \(output)")
            return
        }
        #expect(server.methods == ["PUT", "PUT"])
        #expect(server.bodies == [bytes, bytes])
    }

    @Test("a one-shot body past the replay buffer is sent once, whole, and the logger says so", arguments: OpenAPITransport.allCases)
    func oneShotBodyPastBuffer(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 204)])
        defer { Task { try await server.shutdown() } }
        let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let messages = RecordedLog()
        let client = client(
            middleware(.all(Self.retrying), over: transport, maxBufferedRequestBytes: 1000, logger: messages.logger),
            server: server, over: transport)
        // Driven like the retried cases, so that a retry, were there one,
        // would fail here rather than wait for ever.
        let (result, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await outcome { try await client.uploadPoster(path: .init(name: "fight-club"), body: .binary(.oneShot(bytes))) }
        }
        let output = try result.get()
        guard case .undocumented(statusCode: 503, _) = output else {
            Issue.record("expected the 503, got \(output)")
            return
        }
        #expect(server.bodies == [bytes])
        #expect(messages.entries.map(\.level) == [.warning])
        #expect(messages.entries.first?.metadata["retry.operation"] == "uploadPoster")
        guard case .failed(_, let reason, _, _) = log.events.last else {
            Issue.record("the observer saw no failure: \(log.events)")
            return
        }
        #expect(reason == .notIdempotent)
    }

    @Test("without returning the last response, the policy's failure reaches the caller inside ClientError", arguments: OpenAPITransport.allCases)
    func failureInsideClientError(transport: OpenAPITransport) async throws {
        let server = try await ScriptedHTTPServer.start(Array(repeating: .respond(status: 503), count: 3))
        defer { Task { try await server.shutdown() } }
        var middleware = middleware(.all(Self.retrying), over: transport)
        middleware.returningLastResponse = false
        let client = client(middleware, server: server, over: transport)
        let (output, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1, 2]) {
            await outcome { try await client.getMovie(path: .init(id: 550)) }
        }
        let error = try #require(output.error as? ClientError)
        let failure = try #require(error.underlyingError as? RetryFailure)
        #expect(failure.reason == .attemptsExhausted)
        #expect(failure.error.statusCode == 503)
        #expect(failure.attempts.count == 3)
        #expect(error.operationID == "getMovie")
    }

    @Test("policies from a PolicyStore directory, by operationId", arguments: OpenAPITransport.allCases)
    func policiesFromStore(transport: OpenAPITransport) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-policies-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            version: 1
            name: getMovie
            attempts: 2
            backoff: { initial: 3s, max: 3s, multiplier: 1, jitter: none }
            rules:
              - status: 5xx
                error: status_5xx
                action: retry
            default: { error: internal_error, action: stop }
            """.write(toFile: directory + "/getMovie.yaml", atomically: true, encoding: .utf8)
        let store = PolicyStore(directory: directory, loader: .yaml())
        #expect(store.snapshot.problems.isEmpty, "\(store.snapshot.problems)")
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 500), .respond(status: 200, headers: Self.json, body: Self.movie),
        ])
        defer { Task { try await server.shutdown() } }
        let policies = OperationPolicies { store.decider(named: $0) }
        let client = client(middleware(policies, over: transport), server: server, over: transport)
        let (output, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await outcome { try await client.getMovie(path: .init(id: 550)) }
        }
        #expect(try output.get().ok.body.json.title == "Fight Club")
        #expect(steps == [.seconds(3)])
        #expect(server.requestCount == 2)
    }
}

/// What `body` returned or threw.
func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

extension Result where Failure == any Error {
    var error: (any Error)? { if case .failure(let error) = self { error } else { nil } }
}
#endif
