#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import HTTPTestSupport
import NIOCore
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

/// One client for every test, configured as the decorator recommends (no
/// connection retries of its own).
let testHTTPClient = HTTPClient(
    eventLoopGroup: HTTPClient.defaultEventLoopGroup,
    configuration: RetryingHTTPClient<ManualClock>.recommendedConfiguration)

/// The AsyncHTTPClient decorator against a real server on 127.0.0.1.
///
/// Waits run on a manual clock, so a `Retry-After: 1` costs no real
/// second and the asserted wait is exact; the network is real.
@Suite("AsyncHTTPClient decorator against a loopback server", .serialized)
struct AsyncHTTPClientTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    func client(_ policy: Policy, log: EventLog? = nil) -> RetryingHTTPClient<ManualClock> {
        RetryingHTTPClient(
            client: testHTTPClient,
            executor: RetryExecutor(
                decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin, observer: log?.observer))
    }

    @Test("seed 000: 503 then 200 is retried once after the backoff and returns the 200's body")
    func serverErrorThenSuccess() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200, body: "movie")])
        defer { Task { try await server.shutdown() } }
        let client = client(TestPolicies.tmdb(jitter: .none))
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in
                try await client.execute(HTTPClientRequest(url: server.url + "/3/movie/550"))
            }
        }
        let response = try result.get()
        #expect(response.statusCode == 200)
        #expect(String(buffer: response.body) == "movie")
        #expect(server.requestCount == 2)
        #expect(server.received == ["/3/movie/550", "/3/movie/550"])
        #expect(steps == [.seconds(1)])
    }

    @Test("seed 000: a persistent 5xx is retried up to the limit, then status_5xx is thrown")
    func retriesExhausted() async throws {
        let server = try await ScriptedHTTPServer.start(Array(repeating: .respond(status: 503), count: 5))
        defer { Task { try await server.shutdown() } }
        let client = client(TestPolicies.tmdb(jitter: .none))
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1, 2, 3]) {
            await capture { () async throws(RetryFailure) in try await client.execute(HTTPClientRequest(url: server.url)) }
        }
        let failure = try #require(result.failure)
        #expect(server.requestCount == 4)
        #expect(steps == [.seconds(1), .seconds(2), .seconds(4)])
        #expect(failure.error.kind == .status5xx)
        #expect(failure.error.statusCode == 503)
        #expect(failure.reason == .attemptsExhausted)
        #expect(failure.attempts.count == 4)
    }

    @Test("seed 000: 429 with Retry-After: 1 waits one second, as the server asked")
    func retryAfterSeconds() async throws {
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 429, headers: [("Retry-After", "1")]), .respond(status: 200),
        ])
        defer { Task { try await server.shutdown() } }
        let log = EventLog()
        let client = client(TestPolicies.tmdb(), log: log)
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in try await client.execute(HTTPClientRequest(url: server.url)) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(server.requestCount == 2)
        #expect(steps == [.seconds(1)])
        #expect(log.waitCauses == [.server])
    }

    @Test("429 with an HTTP-date Retry-After waits until that date")
    func retryAfterHTTPDate() async throws {
        let server = try await ScriptedHTTPServer.start([
            .respond(status: 429, headers: [("Retry-After", imfFixdate(origin + .seconds(3)))]), .respond(status: 200),
        ])
        defer { Task { try await server.shutdown() } }
        let client = client(TestPolicies.tmdb())
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in try await client.execute(HTTPClientRequest(url: server.url)) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(server.requestCount == 2)
        #expect(steps == [.seconds(3)])
    }

    @Test("seed 000: a non-retryable status is thrown at once")
    func nonRetryable() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 404), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let result = await capture { () async throws(RetryFailure) in
            try await client(TestPolicies.tmdb()).execute(HTTPClientRequest(url: server.url))
        }
        let failure = try #require(result.failure)
        #expect(server.requestCount == 1)
        #expect(failure.error.kind == .networkError)
        #expect(failure.error.statusCode == 404)
        #expect(clock.totalSleeps == 0)
    }

    @Test("seed 000: cancellation during the wait stops the retry loop; no further request is sent")
    func cancellationStopsLoop() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let client = client(TestPolicies.tmdb(jitter: .none))
        let task = Task {
            await capture { () async throws(RetryFailure) in try await client.execute(HTTPClientRequest(url: server.url)) }
        }
        await server.requests(atLeast: 1)
        await clock.sleepers(atLeast: 1)
        task.cancel()
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(failure.error.kind == .cancelled)
        #expect(server.requestCount == 1)
    }

    @Test("seed 004 smoke: no fill (204) is no_fill after one request")
    func noFill() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 204)])
        defer { Task { try await server.shutdown() } }
        let result = await capture { () async throws(RetryFailure) in
            try await client(TestPolicies.mobileSDK()).execute(HTTPClientRequest(url: server.url), endpoint: "main_banner")
        }
        let failure = try #require(result.failure)
        #expect(failure.error.kind == .noFill)
        #expect(failure.error.statusCode == 204)
        #expect(server.requestCount == 1)
    }

    @Test("seed 004 smoke: rate limit (429) is status_429 with the server's Retry-After, not retried")
    func rateLimit() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 429, headers: [("Retry-After", "1")])])
        defer { Task { try await server.shutdown() } }
        let result = await capture { () async throws(RetryFailure) in
            try await client(TestPolicies.mobileSDK()).execute(HTTPClientRequest(url: server.url))
        }
        let failure = try #require(result.failure)
        #expect(failure.error.kind == .status429)
        #expect(failure.error.retryAfter == .seconds(1))
        #expect(failure.reason == .notRetryable)
        #expect(server.requestCount == 1)
    }

    @Test("seed 004 smoke: server error (503) is status_5xx after a single request")
    func serverError() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let result = await capture { () async throws(RetryFailure) in
            try await client(TestPolicies.mobileSDK()).execute(HTTPClientRequest(url: server.url))
        }
        let failure = try #require(result.failure)
        #expect(failure.error.kind == .status5xx)
        #expect(failure.error.statusCode == 503)
        #expect(server.requestCount == 1)
    }

    @Test("seed 004 smoke: a response slower than the placement budget is a timeout after exactly the budget")
    func slowResponseTimesOut() async throws {
        let server = try await ScriptedHTTPServer.start([.hang])
        defer { Task { try await server.shutdown() } }
        let client = client(TestPolicies.mobileSDK())
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in
                try await client.execute(HTTPClientRequest(url: server.url), endpoint: "main_banner")
            }
        }
        let failure = try #require(result.failure)
        #expect(steps == [.seconds(5)])
        #expect(failure.error.kind == .timeout)
        #expect(failure.error.transport == .timeout)
        #expect(server.requestCount == 1)
    }

    @Test("a timed-out attempt is retried when the policy retries timeouts")
    func timeoutRetried() async throws {
        let server = try await ScriptedHTTPServer.start([.hang, .respond(status: 200, body: "ok")])
        defer { Task { try await server.shutdown() } }
        let client = client(TestPolicies.appClient(perAttempt: .seconds(2)))
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1, 1]) {
            await capture { () async throws(RetryFailure) in try await client.execute(HTTPClientRequest(url: server.url)) }
        }
        #expect(String(buffer: try result.get().body) == "ok")
        #expect(steps == [.seconds(2), .milliseconds(500)])
        #expect(server.requestCount == 2)
    }

    @Test("a connection closed mid-response is connection_lost, and retried by a policy that retries it")
    func closedMidResponse() async throws {
        let server = try await ScriptedHTTPServer.start([.closeMidResponse(), .respond(status: 200, body: "whole")])
        defer { Task { try await server.shutdown() } }
        let log = EventLog()
        let client = client(TestPolicies.appClient(), log: log)
        let (result, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in try await client.execute(HTTPClientRequest(url: server.url)) }
        }
        #expect(String(buffer: try result.get().body) == "whole")
        #expect(server.requestCount == 2)
        let first = log.events.compactMap { if case .attemptFinished(let record) = $0 { record } else { nil } }.first
        #expect(first?.outcome == .transport(.connectionLost))

        let single = try await ScriptedHTTPServer.start([.closeMidResponse()])
        defer { Task { try await single.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await self.client(TestPolicies.mobileSDK()).execute(HTTPClientRequest(url: single.url))
            }.failure)
        #expect(failure.error.kind == .networkError)
        #expect(failure.error.transport == .connectionLost)
    }

    @Test("a refused port is connection_refused, which the SDK policy reports as network_error")
    func refusedPort() async throws {
        let port = try await ScriptedHTTPServer.refusedPort()
        let result = await capture { () async throws(RetryFailure) in
            try await client(TestPolicies.mobileSDK()).execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/"))
        }
        let failure = try #require(result.failure)
        #expect(failure.error.transport == .connectionRefused)
        #expect(failure.error.kind == .networkError)
        #expect(failure.attempts.count == 1)
    }

    @Test("a POST is sent once; with an Idempotency-Key header it is retried")
    func idempotencyKey() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 503), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        var post = HTTPClientRequest(url: server.url + "/payments")
        post.method = .POST
        post.body = .bytes(ByteBuffer(string: "{}"))
        let failure = try #require(
            await capture { () async throws(RetryFailure) in try await self.client(TestPolicies.tmdb()).execute(post) }.failure)
        #expect(failure.reason == .notIdempotent)
        #expect(server.requestCount == 1)

        post.headers.add(name: "Idempotency-Key", value: "order-17")
        let keyed = self.client(TestPolicies.tmdb(jitter: .none))
        let (result, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [2]) { [post] in
            await capture { () async throws(RetryFailure) in try await keyed.execute(post) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(server.requestCount == 3)
    }

    @Test("on the real continuous clock, short backoffs are really waited")
    func realClock() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 502), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        var policy = TestPolicies.tmdb(jitter: .none)
        policy.backoff = Backoff(initial: .milliseconds(20), max: .milliseconds(100), jitter: .none)
        let client = RetryingHTTPClient(client: testHTTPClient, policy: policy)
        let started = ContinuousClock.now
        let response = try await client.execute(HTTPClientRequest(url: server.url))
        let elapsed = ContinuousClock.now - started
        #expect(response.statusCode == 200)
        #expect(server.requestCount == 3)
        #expect(elapsed >= .milliseconds(60))
        // Far above 60 ms plus three loopback round trips: the bound only
        // catches waits of the wrong unit, not a machine busy running the
        // rest of the suite.
        #expect(elapsed < .seconds(30))
    }
}
#endif
