#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import HTTPTestSupport
import InMemoryTracing
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import Testing
import Tracing

/// The AsyncHTTPClient adapter never makes two client spans for one HTTP
/// request: either the executor's attempt spans are the client spans (the
/// client does not trace), or the client's own are (the executor makes
/// only the request span). Against a real loopback server.
@Suite("AsyncHTTPClient adapter: one client span per attempt", .serialized)
struct AdapterTracingTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    func retried(through client: HTTPClient, tracer: InMemoryTracer, server: ScriptedHTTPServer) async throws {
        let retrying = RetryingHTTPClient(
            client: client,
            executor: RetryExecutor(
                decider: RetryDecider(policy: TestPolicies.tmdb(jitter: .none)), clock: clock, wallClockNow: origin,
                tracing: RetryTracing(tracer: tracer)))
        let (result, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in
                try await retrying.execute(HTTPClientRequest(url: server.url + "/3/movie/550"))
            }
        }
        #expect(try result.get().statusCode == 200)
    }

    @Test("a client without a tracer: the executor's attempt spans are the client spans, and their context reaches the server")
    func executorSpans() async throws {
        let tracer = InMemoryTracer()
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200, body: "movie")])
        defer { Task { try await server.shutdown() } }
        try await retried(through: testHTTPClient, tracer: tracer, server: server)
        let spans = tracer.finishedSpans
        let root = try #require(spans.first { $0.operationName == "retry_policy.request" })
        let clients = spans.filter { $0.kind == .client }
        #expect(clients.count == 2)
        #expect(clients.allSatisfy { $0.parentSpanID == root.spanID && $0.attributes.get("retry_policy.attempt") != nil })
        #expect(root.attributes.get("url.full") == .string(server.url + "/3/movie/550"))
        #expect(root.attributes.get("server.address") == .string("127.0.0.1"))
        // The in-memory tracer injects its own ids: each attempt's span id.
        #expect(tracer.performedContextInjections.count == 2)
        let injected: [String?] = tracer.performedContextInjections.map { $0.values[InMemoryTracer.spanIDKey] }
        #expect(Set(injected.compactMap { $0 }) == Set(clients.map(\.spanID)))
    }

    @Test("a client with a tracer of its own: its client spans nest under the request span, and the executor makes none")
    func clientSpans() async throws {
        let tracer = InMemoryTracer()
        var configuration = RetryingHTTPClient<ManualClock>.recommendedConfiguration
        configuration.tracing.tracer = tracer
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200, body: "movie")])
        defer { Task { try await server.shutdown() } }
        try await retried(through: client, tracer: tracer, server: server)
        try await client.shutdown()
        let spans = tracer.finishedSpans
        let root = try #require(spans.first { $0.operationName == "retry_policy.request" })
        let clients = spans.filter { $0.kind == .client }
        #expect(clients.count == 2, "\(spans.map { "\($0.operationName) \($0.kind)" })")
        #expect(clients.allSatisfy { $0.parentSpanID == root.spanID && $0.attributes.get("retry_policy.attempt") == nil })
        #expect(root.events.map(\.name) == ["retry_policy.retry"])
    }
}
#endif
