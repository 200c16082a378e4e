#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTestSupport
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting
import RetryPolicyURLSession
import Testing

/// Each transport class the URLSession adapter reports, produced by a real
/// peer on 127.0.0.1 (or, for `dns`, by the system resolver), and judged
/// through the executor and a policy.
///
/// `connection_refused` and a body cut off by a clean close are proven in
/// URLSessionTests, the executor's per-attempt `timeout` there too;
/// `offline` cannot be produced honestly on loopback and is covered by
/// ErrorMappingTests.
@Suite("URLSession transport classes against real peers", .serialized)
struct URLSessionTransportTests {
    let clock = ManualClock()

    func session(_ policy: Policy) -> RetryingURLSession<ManualClock> {
        RetryingURLSession(session: .shared, executor: RetryExecutor(decider: RetryDecider(policy: policy), clock: clock))
    }

    func request(_ url: String, timeout: TimeInterval = 30) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = timeout
        return request
    }

    /// What URLSession itself throws for `request`.
    func thrown(_ request: URLRequest) async throws -> URLError {
        let error = try #require(await thrownError { _ = try await URLSession.shared.data(for: request) })
        return try #require(error as? URLError, "\(type(of: error)): \(error)")
    }

    func transports(_ failure: RetryFailure) -> [AttemptOutcome] { failure.attempts.map(\.outcome) }

    @Test("https to a plaintext server fails the handshake: tls, retried as often as the policy allows")
    func tlsHandshakeRetried() async throws {
        let server = try await ScriptedHTTPServer.start([])
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await session(.single(.tls, .retry, attempts: 3)).data(for: request("https://127.0.0.1:\(server.port)/"))
            }.failure)
        #expect(failure.error.transport == .tls, "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.error.kind == .networkError)
        #expect(failure.reason == .attemptsExhausted)
        #expect(transports(failure) == Array(repeating: .transport(.tls), count: 3))
        #expect(server.requestCount == 0)
    }

    @Test("a tls rule with action stop ends the request after the first failed handshake")
    func tlsHandshakeStopped() async throws {
        let server = try await ScriptedHTTPServer.start([])
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await session(.single(.tls, .stop, attempts: 3)).data(for: request("https://127.0.0.1:\(server.port)/"))
            }.failure)
        #expect(failure.error.transport == .tls)
        #expect(failure.reason == .notRetryable)
        #expect(transports(failure) == [.transport(.tls)])
    }

    @Test("a self-signed certificate is tls, and a stop rule ends the request there")
    func untrustedCertificate() async throws {
        let server = try await ScriptedHTTPServer.start(
            [.respond(status: 200, body: "over tls")], tls: LoopbackCertificate.serverContext())
        defer { Task { try await server.shutdown() } }
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await session(.single(.tls, .stop)).data(for: request(server.url))
            }.failure)
        #expect(failure.error.transport == .tls, "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .notRetryable)
        #expect(failure.attempts.count == 1)
        #expect(server.requestCount == 0)
        #if canImport(FoundationNetworking)
        let direct = try await thrown(request(server.url))
        #expect(direct.code == .unknown)
        let message = try #require(direct.userInfo[NSLocalizedDescriptionKey] as? String)
        #expect(message.hasPrefix("SSL certificate problem: "), "\(message)")
        #endif
    }

    #if canImport(FoundationNetworking)
    /// Pins down what FoundationNetworking (libcurl) reports, which is why
    /// the adapter reads libcurl's message for these two classes: if a
    /// later Foundation gives them proper codes, this test says so.
    @Test("FoundationNetworking reports a cut-off body, an empty reply and a failed handshake with libcurl's message as the only detail")
    func foundationNetworkingErrorShapes() async throws {
        let server = try await ScriptedHTTPServer.start([.closeMidResponse(), .closeWithoutResponse])
        defer { Task { try await server.shutdown() } }

        let cut = try await thrown(request(server.url))
        #expect(cut.code == .unknown)
        let cutMessage = try #require(cut.userInfo[NSLocalizedDescriptionKey] as? String)
        #expect(cutMessage.hasPrefix("transfer closed with "), "\(cutMessage)")
        #expect(ErrorClassifier.urlSession.outcome(for: cut) == .transport(.connectionLost))

        let empty = try await thrown(request(server.url))
        #expect(empty.code == .badServerResponse)
        let emptyMessage = try #require(empty.userInfo[NSLocalizedDescriptionKey] as? String)
        #expect(emptyMessage.hasPrefix("Empty reply from server"), "\(emptyMessage)")
        #expect(ErrorClassifier.urlSession.outcome(for: empty) == .transport(.connectionLost))

        let tls = try await thrown(request("https://127.0.0.1:\(server.port)/"))
        #expect(tls.code == .unknown)
        let tlsMessage = try #require(tls.userInfo[NSLocalizedDescriptionKey] as? String)
        #expect(tlsMessage.contains("SSL"), "\(tlsMessage)")
        #expect(ErrorClassifier.urlSession.outcome(for: tls) == .transport(.tls))
    }
    #endif

    @Test("a host under .invalid does not resolve: dns, without retrying under a stop rule")
    func unresolvableHost() async throws {
        // Real resolution on the continuous clock, bounded by the policy's
        // per-attempt timeout so that a machine whose resolver does not
        // answer fails this test (as `timeout`) instead of hanging it.
        let retrying = RetryingURLSession(session: .shared, policy: .single(.dns, .stop, perAttempt: .seconds(20)))
        let started = ContinuousClock.now
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await retrying.data(for: request("http://\(invalidTLDHost)/"))
            }.failure)
        let elapsed = ContinuousClock.now - started
        #expect(failure.error.transport == .dns, "after \(elapsed): \(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .notRetryable)
        #expect(failure.attempts.count == 1)

        let direct = try await thrown(request("http://\(invalidTLDHost)/"))
        #expect(direct.code == .cannotFindHost)
    }

    @Test("a dns rule that retries tries every attempt, and each is dns")
    func unresolvableHostRetried() async throws {
        let retrying = RetryingURLSession(session: .shared, policy: .single(.dns, .retry, attempts: 2, perAttempt: .seconds(20)))
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await retrying.data(for: request("http://\(invalidTLDHost):8080/movie"))
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
                try await session(.single(.connectionLost, .retry, attempts: 2)).data(for: request(server.url))
            }.failure)
        #expect(transports(failure) == [.transport(.connectionLost), .transport(.connectionLost)],
                "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .attemptsExhausted)
        #expect(server.requestCount == 2)
    }

    @Test("cancelling a request in flight: URLSession's error is cancelled, and the executor stops with cancelled")
    func cancelledInFlight() async throws {
        let server = try await ScriptedHTTPServer.start([.hang, .hang])
        defer { Task { try await server.shutdown() } }

        let hanging = request(server.url)
        let direct = Task { await thrownError { _ = try await URLSession.shared.data(for: hanging) } }
        await server.requests(atLeast: 1)
        direct.cancel()
        let error = try #require(await direct.value)
        #expect((error as? URLError)?.code == .cancelled, "\(type(of: error)): \(error)")
        #expect(ErrorClassifier.urlSession.outcome(for: error) == .transport(.cancelled))

        let retrying = session(
            Policy(
                name: "retry-every-failure", attempts: 3, backoff: .immediate,
                rules: [Rule(transports: Set(TransportFailure.allCases).subtracting([.cancelled]), error: .networkError, action: .retry)]))
        let task = Task { await capture { () async throws(RetryFailure) in try await retrying.data(for: hanging) } }
        await server.requests(atLeast: 2)
        task.cancel()
        let failure = try #require(await task.value.failure)
        #expect(failure.reason == .cancelled)
        #expect(failure.error.transport == .cancelled)
        #expect(failure.error.kind == .cancelled)
        #expect(server.requestCount == 2)
    }

    @Test("URLSession's own request timeout is timeout")
    func requestTimeout() async throws {
        let server = try await ScriptedHTTPServer.start([.hang])
        defer { Task { try await server.shutdown() } }
        // One second, the shortest honest value: FoundationNetworking
        // truncates `timeoutInterval` to whole seconds, and 0.3 would
        // time out at once, before the request reached the server.
        let failure = try #require(
            await capture { () async throws(RetryFailure) in
                try await session(.single(.timeout, .stop)).data(for: request(server.url, timeout: 1))
            }.failure)
        #expect(failure.error.transport == .timeout, "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.reason == .notRetryable)
        #expect(server.requestCount == 1)
    }
}
#endif
