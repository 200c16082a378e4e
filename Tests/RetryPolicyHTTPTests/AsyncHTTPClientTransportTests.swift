#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import HTTPTestSupport
import NIOCore
import NIOPosix
import NIOSSL
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Each transport class the AsyncHTTPClient adapter reports, produced by a
/// real peer on 127.0.0.1 (or, for `dns`, by the system resolver), and
/// judged through the executor and a policy.
///
/// `connection_refused` and a body cut off by a clean close are proven in
/// AsyncHTTPClientTests, the executor's own per-attempt `timeout` there
/// too; `offline` cannot be produced honestly on loopback and is covered
/// by ErrorMappingTests.
@Suite("AsyncHTTPClient transport classes against real peers", .serialized)
struct AsyncHTTPClientTransportTests {
    let clock = ManualClock()

    func client(_ policy: Policy, http: HTTPClient = testHTTPClient) -> RetryingHTTPClient<ManualClock> {
        RetryingHTTPClient(client: http, executor: RetryExecutor(decider: RetryDecider(policy: policy), clock: clock))
    }

    func transports(_ failure: RetryFailure) -> [AttemptOutcome] { failure.attempts.map(\.outcome) }

    @Test("https to a plaintext server fails the handshake: tls, retried as often as the policy allows")
    func tlsHandshakeRetried() async throws {
        let server = try await ScriptedHTTPServer.start([])
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await client(.single(.tls, .retry, attempts: 3))
                    .execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            }.failure)
        #expect(failure.error.transport == .tls, "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.error.kind == .networkError)
        #expect(failure.reason == .attemptsExhausted)
        #expect(transports(failure) == Array(repeating: .transport(.tls), count: 3))
        // The server never saw an HTTP request: the client hello is not one.
        #expect(server.requestCount == 0)
    }

    @Test("a tls rule with action stop ends the request after the first failed handshake")
    func tlsHandshakeStopped() async throws {
        let server = try await ScriptedHTTPServer.start([])
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await client(.single(.tls, .stop, attempts: 3))
                    .execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/"))
            }.failure)
        #expect(failure.error.transport == .tls)
        #expect(failure.reason == .notRetryable)
        #expect(transports(failure) == [.transport(.tls)])
    }

    @Test("a self-signed certificate is tls; the same server answers a client that skips verification")
    func untrustedCertificate() async throws {
        let server = try await ScriptedHTTPServer.start(
            [.respond(status: 200, body: "over tls")], tls: LoopbackCertificate.serverContext())
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await client(.single(.tls, .stop)).execute(HTTPClientRequest(url: server.url))
            }.failure)
        #expect(failure.error.transport == .tls, "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .notRetryable)
        #expect(failure.attempts.count == 1)
        #expect(server.requestCount == 0)

        // Control: the server does speak TLS and HTTP, so the failure above
        // was the certificate.
        var configuration = RetryingHTTPClient<ManualClock>.recommendedConfiguration
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        configuration.tlsConfiguration = tls
        let trusting = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let result = await capture { () async throws(RetryFailure) in
            try await client(.single(.tls, .stop), http: trusting).execute(HTTPClientRequest(url: server.url))
        }
        try await trusting.shutdown()
        #expect(String(buffer: try result.get().body) == "over tls")
        #expect(server.requestCount == 1)
    }

    @Test("AsyncHTTPClient's failures arrive as the NIO types the mapping matches")
    func errorShapes() async throws {
        let server = try await ScriptedHTTPServer.start([])
        defer { Task { try await server.shutdown() } }
        let refusedPort = try await ScriptedHTTPServer.refusedPort()
        func thrown(_ url: String) async throws -> any Error {
            try #require(
                await thrownError {
                    _ = try await testHTTPClient.execute(HTTPClientRequest(url: url), deadline: .now() + .seconds(20))
                })
        }

        let tls = try await thrown("https://127.0.0.1:\(server.port)/")
        #expect(tls is NIOSSLError, "\(type(of: tls)): \(tls)")
        if case .handshakeFailed = tls as? NIOSSLError {} else { Issue.record("not a failed handshake: \(tls)") }

        let dns = try await thrown("http://\(invalidTLDHost)/")
        let lookup = try #require(dns as? NIOConnectionError, "\(type(of: dns)): \(dns)")
        #expect(lookup.dnsAError != nil || lookup.dnsAAAAError != nil)
        #expect(lookup.connectionErrors.isEmpty)
        for failed in [lookup.dnsAError, lookup.dnsAAAAError].compactMap({ $0 }) {
            #expect(failed is SocketAddressError.UnknownHost, "\(type(of: failed)): \(failed)")
            #expect(ErrorClassifier.asyncHTTPClient.outcome(for: failed) == .transport(.dns))
        }
        // The same resolver outside Happy Eyeballs throws the bare error.
        let resolving = try #require(await thrownError { _ = try SocketAddress.makeAddressResolvingHost(invalidTLDHost, port: 80) })
        #expect(resolving is SocketAddressError.UnknownHost, "\(type(of: resolving)): \(resolving)")
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: resolving) == .transport(.dns))

        // An IP literal is connected to directly: the socket's errno.
        let refused = try await thrown("http://127.0.0.1:\(refusedPort)/")
        #expect((refused as? IOError)?.errnoCode == ECONNREFUSED, "\(type(of: refused)): \(refused)")

        // A name goes through Happy Eyeballs: one error per address tried.
        let named = try await thrown("http://localhost:\(refusedPort)/")
        let connect = try #require(named as? NIOConnectionError, "\(type(of: named)): \(named)")
        #expect(connect.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }, "\(connect)")

        for (error, expected) in [(tls, TransportFailure.tls), (dns, .dns), (refused, .connectionRefused), (named, .connectionRefused)] {
            #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(expected))
        }
    }

    @Test("a host under .invalid does not resolve: dns, without retrying under a stop rule")
    func unresolvableHost() async throws {
        // Real resolution on the continuous clock, bounded by the policy's
        // per-attempt timeout so that a machine whose resolver does not
        // answer fails this test (as `timeout`) instead of hanging it.
        let retrying = RetryingHTTPClient(client: testHTTPClient, policy: .single(.dns, .stop, perAttempt: .seconds(20)))
        let started = ContinuousClock.now
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await retrying.execute(HTTPClientRequest(url: "http://\(invalidTLDHost)/"))
            }.failure)
        let elapsed = ContinuousClock.now - started
        #expect(failure.error.transport == .dns, "after \(elapsed): \(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .notRetryable)
        #expect(failure.attempts.count == 1)
    }

    @Test("a dns rule that retries tries every attempt, and each is dns")
    func unresolvableHostRetried() async throws {
        let retrying = RetryingHTTPClient(client: testHTTPClient, policy: .single(.dns, .retry, attempts: 2, perAttempt: .seconds(20)))
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await retrying.execute(HTTPClientRequest(url: "http://\(invalidTLDHost):8080/movie"))
            }.failure)
        #expect(transports(failure) == [.transport(.dns), .transport(.dns)])
        #expect(failure.reason == .attemptsExhausted)
    }

    @Test(
        "a connection reset mid-body, or closed before any response, is connection_lost on every attempt",
        arguments: [ServerAction.resetMidResponse, .closeWithoutResponse])
    func connectionDropped(action: ServerAction) async throws {
        let server = try await ScriptedHTTPServer.start([action, action])
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await client(.single(.connectionLost, .retry, attempts: 2)).execute(HTTPClientRequest(url: server.url))
            }.failure)
        #expect(transports(failure) == [.transport(.connectionLost), .transport(.connectionLost)],
                "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .attemptsExhausted)
        #expect(server.requestCount == 2)
    }

    @Test("cancelling a request in flight: the client's error is cancelled, and the executor stops with cancelled")
    func cancelledInFlight() async throws {
        let server = try await ScriptedHTTPServer.start([.hang, .hang])
        defer { Task { try await server.shutdown() } }

        // The client itself, cancelled while the server holds the request.
        let direct = Task {
            await thrownError {
                _ = try await testHTTPClient.execute(HTTPClientRequest(url: server.url), deadline: .now() + .seconds(60))
            }
        }
        await server.requests(atLeast: 1)
        direct.cancel()
        let error = try #require(await direct.value)
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(.cancelled), "\(type(of: error)): \(error)")

        // Through the executor, under a policy that retries every failure but
        // has no rule for `cancelled`, so the standard `cancelled` kind is reported.
        let retrying = client(
            Policy(
                name: "retry-every-failure", attempts: 3, backoff: .immediate,
                rules: [Rule(transports: Set(TransportFailure.allCases).subtracting([.cancelled]), error: .networkError, action: .retry)]))
        let task = Task {
            await capture { () async throws(RetryFailure) in try await retrying.execute(HTTPClientRequest(url: server.url)) }
        }
        await server.requests(atLeast: 2)
        task.cancel()
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(failure.error.transport == .cancelled)
        #expect(failure.error.kind == .cancelled)
        #expect(server.requestCount == 2)
    }

    @Test("the client's own read timeout is timeout")
    func clientReadTimeout() async throws {
        let server = try await ScriptedHTTPServer.start([.hang])
        defer { Task { try await server.shutdown() } }
        var configuration = RetryingHTTPClient<ManualClock>.recommendedConfiguration
        configuration.timeout.read = .milliseconds(200)
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let result = await capture { () async throws(RetryFailure) in
            try await client(.single(.timeout, .stop), http: http).execute(HTTPClientRequest(url: server.url))
        }
        try await http.shutdown()
        let failure = try #require(result.failure)
        #expect(failure.error.transport == .timeout, "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .notRetryable)
        #expect(server.requestCount == 1)
    }
}

/// The error `body` threw, if any.
func thrownError(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}
#endif
