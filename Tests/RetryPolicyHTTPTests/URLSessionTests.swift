#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTestSupport
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import RetryPolicyURLSession
import Testing

/// The URLSession decorator (FoundationNetworking on Linux) against a real
/// server on 127.0.0.1.
@Suite("URLSession decorator against a loopback server", .serialized)
struct URLSessionTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    func session(_ policy: Policy, log: EventLog? = nil) -> RetryingURLSession<ManualClock> {
        RetryingURLSession(
            session: .shared,
            executor: RetryExecutor(
                decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin, observer: log?.observer))
    }

    func request(_ url: String) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = 60
        return request
    }

    @Test("503 then 200 is retried once after the backoff")
    func serverErrorThenSuccess() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200, body: "movie")])
        defer { Task { try await server.shutdown() } }
        let session = session(TestPolicies.tmdb(jitter: .none))
        let request = request(server.url + "/3/movie/550")
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in
                let (data, response) = try await session.data(for: request)
                return (String(decoding: data, as: UTF8.self), response.statusCode)
            }
        }
        let (body, status) = try result.get()
        #expect(status == 200)
        #expect(body == "movie")
        #expect(server.requestCount == 2)
        #expect(steps == [.seconds(1)])
    }

    @Test("429 with Retry-After: 1 waits the server's second")
    func retryAfter() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 429, headers: [("Retry-After", "1")]), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let log = EventLog()
        let session = session(TestPolicies.tmdb(), log: log)
        let request = request(server.url)
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in try await session.data(for: request).1.statusCode }
        }
        #expect(try result.get() == 200)
        #expect(steps == [.seconds(1)])
        #expect(log.waitCauses == [.server])
    }

    @Test("seed 004 smoke: no fill, rate limit and server error each end after one request with their kind")
    func smokeScenarios() async throws {
        for (status, kind) in [(204, SDKError.Kind.noFill), (429, .status429), (503, .status5xx)] {
            let server = try await ScriptedHTTPServer.start([.respond(status: status), .respond(status: 200)])
            let failure = try #require(
                await capture { () async throws(RetryFailure) in
                    try await session(TestPolicies.mobileSDK()).data(for: request(server.url), endpoint: "main_banner")
                }.failure)
            #expect(failure.error.kind == kind)
            #expect(failure.error.statusCode == status)
            #expect(server.requestCount == 1)
            try await server.shutdown()
        }
    }

    @Test("seed 004 smoke: a slow response is cancelled at the placement budget and reported as timeout")
    func timeout() async throws {
        let server = try await ScriptedHTTPServer.start([.hang])
        defer { Task { try await server.shutdown() } }
        let session = session(TestPolicies.mobileSDK())
        let request = request(server.url)
        let (result, steps) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in try await session.data(for: request, endpoint: "main_banner") }
        }
        let failure = try #require(result.failure)
        #expect(steps == [.seconds(5)])
        #expect(failure.error.kind == .timeout)
        #expect(server.requestCount == 1)
    }

    @Test("a refused port is connection_refused")
    func refused() async throws {
        let port = try await ScriptedHTTPServer.refusedPort()
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await session(TestPolicies.mobileSDK()).data(for: request("http://127.0.0.1:\(port)/"))
            }.failure)
        #expect(failure.error.transport == .connectionRefused)
        #expect(failure.error.kind == .networkError)
    }

    @Test("a connection closed mid-response is a transport failure, not a truncated success")
    func closedMidResponse() async throws {
        let server = try await ScriptedHTTPServer.start([.closeMidResponse()])
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await session(TestPolicies.mobileSDK()).data(for: request(server.url))
            }.failure)
        #expect(failure.error.transport == .connectionLost, "\(failure.error.detail ?? "")")
        #expect(failure.error.kind == .networkError)
    }
}
#endif
