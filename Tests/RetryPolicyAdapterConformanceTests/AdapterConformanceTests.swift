#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import HTTPTestSupport
import InMemoryTracing
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import Testing
import Tracing

/// Every adapter the contract holds. A new adapter is one conformance to
/// `AdapterUnderTest` and one entry here.
let conformingAdapters: [any AdapterUnderTest] = {
    var adapters: [any AdapterUnderTest] = [
        ExecutorClosureAdapter(),
        URLSessionAdapter(),
        AsyncHTTPClientAdapter(),
    ]
    #if OpenAPI
    adapters += [OpenAPIAdapter(transport: .urlSession), OpenAPIAdapter(transport: .asyncHTTPClient)]
    #endif
    #if GRPC
    adapters.append(GRPCAdapter())
    #endif
    return adapters
}()

/// The adapters a contract case runs for: every one but those whose
/// protocol has no form of the case (`AdapterUnderTest.inapplicableCases`,
/// with the reason).
func adapters(for contractCase: String) -> [any AdapterUnderTest] {
    conformingAdapters.filter { $0.inapplicableCases[contractCase] == nil }
}

/// One contract for every adapter over the executor, each case run against
/// each adapter and a server on 127.0.0.1 that plays a script.
///
/// Waits and per-attempt time limits run on a `ManualClock` that the test
/// moves only once the server has seen the requests expected by then, so
/// every asserted wait is exact and nothing depends on how fast the
/// machine is. The time limit only ends a case that hangs.
@Suite("Adapter conformance", .serialized, .timeLimit(.minutes(2)))
struct AdapterConformanceTests {
    let clock = ManualClock()
    let log = EventLog()
    static let origin = Timestamp(secondsSince1970: 1_750_000_000)

    func executor(_ policy: Policy) -> RetryExecutor<ManualClock> {
        RetryExecutor(
            decider: RetryDecider(policy: policy), clock: clock, wallClockNow: Self.origin, observer: log.observer,
            tracing: nil)
    }

    /// Sends `request` through `adapter` under `policy`, moving the clock
    /// to the next wait's end once the server has received each count of
    /// `advancingAfter`.
    func send(
        _ request: ConformanceRequest, through adapter: any AdapterUnderTest, under policy: Policy,
        server: (any ScriptedServer)?, advancingAfter counts: [Int] = []
    ) async -> (result: Result<ConformanceResponse, RetryFailure>, steps: [Duration]) {
        let executor = executor(policy)
        return await drive(clock, server: server, requestsBeforeEachAdvance: counts) {
            await capture { () async throws(RetryFailure) in try await adapter.send(request, on: executor) }
        }
    }

    var records: [AttemptRecord] {
        log.events.compactMap { if case .attemptFinished(let record) = $0 { record } else { nil } }
    }

    @Test("503, 503, 200 retries to success within the policy's attempts", arguments: conformingAdapters)
    func retriesToSuccess(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([
            .respond(status: 503), .respond(status: 503), .respond(status: 200, body: "ok"),
        ])
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url + "/movie/550"), through: adapter, under: ContractPolicy.standard(attempts: 3),
            server: server, advancingAfter: [1, 2])
        #expect(try result.get() == ConformanceResponse(status: 200, body: "ok"))
        #expect(server.requestCount == 3)
        #expect(server.received == Array(repeating: "/movie/550", count: 3))
        #expect(server.announcedEarlierAttempts == server.expectedEarlierAttempts(after: 3))
        #expect(steps == [.seconds(1), .seconds(2)])
        #expect(log.events.last == .succeeded(attempts: 3, elapsed: .seconds(3)))
    }

    @Test("a persistent 503 ends after exactly the policy's attempts", arguments: conformingAdapters)
    func attemptsExhausted(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer(Array(repeating: .respond(status: 503), count: 4))
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter, under: ContractPolicy.standard(attempts: 3),
            server: server, advancingAfter: [1, 2])
        let failure = try #require(result.failure)
        #expect(failure.reason == .attemptsExhausted)
        #expect(failure.error.kind == .status5xx)
        #expect(server.statusCode(of: failure.error) == 503)
        #expect(failure.attempts.count == 3)
        #expect(server.requestCount == 3)
        #expect(server.announcedEarlierAttempts == server.expectedEarlierAttempts(after: 3))
        #expect(steps == [.seconds(1), .seconds(2)])
    }

    @Test(
        "a non-retryable status stops at once with its SDKError kind",
        arguments: conformingAdapters,
        [(code: 404, kind: SDKError.Kind.notFound), (code: 401, kind: .unauthorized), (code: 400, kind: .networkError)])
    func nonRetryableStatus(adapter: any AdapterUnderTest, status: (code: Int, kind: SDKError.Kind)) async throws {
        let server = try await adapter.startServer([.respond(status: status.code), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let (result, _) = await send(
            ConformanceRequest(url: server.url), through: adapter, under: ContractPolicy.standard(), server: server)
        let failure = try #require(result.failure)
        #expect(failure.error.kind == status.kind)
        #expect(server.statusCode(of: failure.error) == status.code)
        #expect(failure.reason == .notRetryable)
        #expect(failure.attempts.count == 1)
        #expect(server.requestCount == 1)
        #expect(clock.totalSleeps == 0)
    }

    @Test("Retry-After in seconds is waited exactly, as the server's delay", arguments: conformingAdapters)
    func retryAfterSeconds(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([
            .respond(status: 503, headers: [("Retry-After", "7")]), .respond(status: 200, body: "ok"),
        ])
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter, under: ContractPolicy.standard(), server: server,
            advancingAfter: [1])
        #expect(try result.get().status == 200)
        #expect(steps == [.seconds(7)])
        #expect(log.waitCauses == [.server])
        #expect(server.requestCount == 2)
    }

    @Test("Retry-After as an HTTP-date is waited until that date", arguments: adapters(for: "retryAfterHTTPDate"))
    func retryAfterHTTPDate(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([
            .respond(status: 429, headers: [("Retry-After", imfFixdate(Self.origin + .seconds(5)))]),
            .respond(status: 200, body: "ok"),
        ])
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter, under: ContractPolicy.standard(), server: server,
            advancingAfter: [1])
        #expect(try result.get().status == 200)
        #expect(steps == [.seconds(5)])
        #expect(log.waitCauses == [.server])
    }

    @Test("Retry-After above the policy's cap stops without waiting", arguments: conformingAdapters)
    func retryAfterAboveCap(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([
            .respond(status: 429, headers: [("Retry-After", "120")]), .respond(status: 200),
        ])
        defer { Task { try await server.shutdown() } }
        let (result, _) = await send(
            ConformanceRequest(url: server.url), through: adapter, under: ContractPolicy.standard(), server: server)
        let failure = try #require(result.failure)
        #expect(failure.reason == .retryAfterTooLong)
        #expect(failure.error.kind == .status429)
        #expect(failure.error.retryAfter == .seconds(120))
        #expect(server.requestCount == 1)
        #expect(clock.totalSleeps == 0)
    }

    @Test("a POST is not retried when the policy does not allow its method", arguments: conformingAdapters)
    func nonIdempotentNotRetried(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.respond(status: 503), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let (result, _) = await send(
            ConformanceRequest(method: .post, url: server.url + "/payments", body: Array("{}".utf8)),
            through: adapter, under: ContractPolicy.standard(), server: server)
        let failure = try #require(result.failure)
        #expect(failure.reason == .notIdempotent)
        #expect(failure.error.kind == .status5xx)
        #expect(server.requestCount == 1)
        #expect(clock.totalSleeps == 0)
    }

    @Test(
        "a POST is retried when the policy allows its method, or an Idempotency-Key marks it",
        arguments: conformingAdapters, [false, true])
    func nonIdempotentRetriedWhenAllowed(adapter: any AdapterUnderTest, byKey: Bool) async throws {
        let server = try await adapter.startServer([.respond(status: 503), .respond(status: 200, body: "paid")])
        defer { Task { try await server.shutdown() } }
        let policy = byKey ? ContractPolicy.standard() : ContractPolicy.standard(retryableMethods: [.get, .post])
        let request = ConformanceRequest(
            method: .post, url: server.url + "/payments", headers: byKey ? [("Idempotency-Key", "order-17")] : [],
            body: Array("{}".utf8))
        let (result, steps) = await send(request, through: adapter, under: policy, server: server, advancingAfter: [1])
        #expect(try result.get() == ConformanceResponse(status: 200, body: "paid"))
        #expect(server.methods == ["POST", "POST"])
        // The caller's key goes with every attempt, the retry included.
        #expect(server.headers.map { $0["idempotency-key"] } == Array(repeating: byKey ? "order-17" : nil, count: 2))
        #expect(steps == [.seconds(1)])
    }

    @Test("every attempt re-sends the same body", arguments: conformingAdapters)
    func sameBodyEveryAttempt(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([
            .respond(status: 503), .respond(status: 502), .respond(status: 200, body: "stored"),
        ])
        defer { Task { try await server.shutdown() } }
        let body = Array(#"{"order":17,"note":"crème brûlée"}"#.utf8) + [0, 0xFF, 0x0A]
        let (result, _) = await send(
            ConformanceRequest(method: .put, url: server.url + "/orders/17", body: body), through: adapter,
            under: ContractPolicy.standard(), server: server, advancingAfter: [1, 2])
        #expect(try result.get().body == "stored")
        #expect(server.methods == ["PUT", "PUT", "PUT"])
        #expect(server.bodies == [body, body, body])
    }

    @Test("a one-shot body stream is sent once, whole, and not retried", arguments: conformingAdapters)
    func oneShotBodySentOnce(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.respond(status: 503), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        // Longer than any adapter buffers to send again.
        let body = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let (result, _) = await send(
            ConformanceRequest(method: .put, url: server.url + "/posters/17", body: body, bodyIsOneShot: true),
            through: adapter, under: ContractPolicy.standard(), server: server,
            // A retry, were there one, would run and fail the case rather
            // than wait for ever.
            advancingAfter: [1])
        let failure = try #require(result.failure)
        #expect(failure.reason == .notIdempotent)
        #expect(failure.error.kind == .status5xx)
        #expect(failure.attempts.count == 1)
        #expect(server.bodies == [body])
        #expect(clock.totalSleeps == 0)
    }

    @Test("returning the last response: the response the policy stopped on is returned, not thrown", arguments: conformingAdapters)
    func lastResponseReturned(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([
            .respond(status: 503, body: "busy"), .respond(status: 503, body: "still busy"), .respond(status: 200),
        ])
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url, returningLastResponse: true), through: adapter,
            under: ContractPolicy.standard(attempts: 2), server: server, advancingAfter: [1])
        #expect(try result.get() == ConformanceResponse(status: 503, body: "still busy"))
        #expect(server.requestCount == 2)
        #expect(steps == [.seconds(1)])
    }

    /// The HTTP adapters: the executor driven by a bare closure knows no
    /// address and sends no headers of its own.
    static let httpAdapters = conformingAdapters.filter { !($0 is ExecutorClosureAdapter) }

    @Test("every attempt has a client span under the request span, and its context goes with it", arguments: httpAdapters)
    func attemptSpans(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.respond(status: 503), .respond(status: 200, body: "ok")])
        defer { Task { try await server.shutdown() } }
        let tracer = InMemoryTracer()
        var traced = executor(ContractPolicy.standard())
        traced.tracing = RetryTracing(tracer: tracer)
        let executor = traced
        let request = ConformanceRequest(url: server.url + "/movie/550")
        let (result, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in try await adapter.send(request, on: executor) }
        }
        #expect(try result.get().status == 200)
        let spans = tracer.finishedSpans
        let root = try #require(spans.first { $0.operationName == "retry_policy.request" })
        let clients = spans.filter { $0.kind == .client }
        #expect(clients.count == 2)
        #expect(clients.allSatisfy { $0.parentSpanID == root.spanID })
        let target = server.requestSpanTarget(path: "/movie/550")
        #expect(root.attributes.get(target.attribute) == .string(target.value))
        // The in-memory tracer injects its own ids: each attempt's span id.
        let injected: [String?] = tracer.performedContextInjections.map { $0.values[InMemoryTracer.spanIDKey] }
        #expect(Set(injected.compactMap { $0 }) == Set(clients.map(\.spanID)))
        #expect(injected.count == 2)
        // And each attempt carried its own span's context to the server.
        let received = server.headers.compactMap { $0[InMemoryTracer.spanIDKey] }
        #expect(received.count == 2)
        #expect(Set(received) == Set(clients.map(\.spanID)))
    }

    @Test("metrics: each attempt counted by its decision, the request's attempts and retries recorded", arguments: conformingAdapters)
    func attemptMetrics(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.respond(status: 503), .respond(status: 200, body: "ok")])
        defer { Task { try await server.shutdown() } }
        let metrics = TestMetrics()
        var measured = executor(ContractPolicy.standard())
        measured.telemetry = RetryTelemetry(factory: metrics)
        let executor = measured
        let request = ConformanceRequest(url: server.url)
        let (result, _) = await drive(clock, server: server, requestsBeforeEachAdvance: [1]) {
            await capture { () async throws(RetryFailure) in try await adapter.send(request, on: executor) }
        }
        #expect(try result.get().status == 200)
        // By decision and status; the endpoint is each adapter's (the
        // middleware names it after the operation).
        let attempts = metrics.counterKeys.filter { $0.label == "retry_policy.client.attempts" }
        let counted = attempts.map { key in
            "\(key.dimensions["retry_policy.decision"] ?? "?") \(key.dimensions["http.response.status_code"] ?? "?") \(metrics.counter(key.label, key.dimensions))"
        }
        #expect(counted.sorted() == ["retry \(server.metricStatus(503)) 1", "success \(server.metricStatus(200)) 1"])
        #expect(attempts.allSatisfy { $0.dimensions["retry_policy.policy"] == "contract" })
        let calls = metrics.recorderKeys.filter { $0.label == "retry_policy.client.call.attempts" }
        #expect(calls.flatMap { metrics.recorded($0.label, $0.dimensions) } == [2])
        let retries = metrics.recorderKeys.filter { $0.label == "retry_policy.client.call.retries" }
        #expect(retries.flatMap { metrics.recorded($0.label, $0.dimensions) } == [1])
    }

    @Test("a refused connection is connection_refused", arguments: adapters(for: "refusedConnection"))
    func refusedConnection(adapter: any AdapterUnderTest) async throws {
        let port = try await ScriptedHTTPServer.refusedPort()
        let (result, _) = await send(
            ConformanceRequest(url: "http://127.0.0.1:\(port)/"), through: adapter, under: ContractPolicy.standard(),
            server: nil)
        let failure = try #require(result.failure)
        #expect(failure.error.transport == .connectionRefused, "\(failure.attempts.map { $0.errorDescription ?? "" })")
        #expect(failure.error.kind == .networkError)
        #expect(failure.reason == .notRetryable)
        #expect(failure.attempts.map(\.outcome) == [.transport(.connectionRefused)])
    }

    @Test("a connection reset mid-response is connection_lost, and retried", arguments: adapters(for: "resetConnection"))
    func resetConnection(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.resetMidResponse, .respond(status: 200, body: "whole")])
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter, under: ContractPolicy.standard(), server: server,
            advancingAfter: [1])
        #expect(try result.get().body == "whole")
        #expect(
            records.map(\.outcome) == [server.connectionLostOutcome, server.outcome(status: 200)],
            "\(records.map { $0.errorDescription ?? "" })")
        #expect(steps == [.seconds(1)])
        #expect(server.requestCount == 2)
    }

    @Test("an attempt past the per-attempt limit is a timeout, and the last one fails the request with it", arguments: conformingAdapters)
    func timeoutIsTransportFailure(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.hang])
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter,
            under: ContractPolicy.standard(attempts: 1, perAttempt: .seconds(2)), server: server, advancingAfter: [1])
        let failure = try #require(result.failure)
        #expect(failure.error.transport == .timeout)
        #expect(failure.error.kind == .timeout)
        #expect(failure.reason == .attemptsExhausted)
        #expect(failure.attempts.map(\.duration) == [.seconds(2)])
        #expect(steps == [.seconds(2)])
        // The attempt was cancelled, not left running: the client closed
        // its connection.
        await server.abandonedHangs(atLeast: 1)
    }

    @Test("a per-attempt timeout cancels the attempt and retries", arguments: conformingAdapters)
    func perAttemptTimeoutRetries(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.hang, .respond(status: 200, body: "ok")])
        defer { Task { try await server.shutdown() } }
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter,
            under: ContractPolicy.standard(perAttempt: .seconds(2)), server: server, advancingAfter: [1, 1])
        #expect(try result.get() == ConformanceResponse(status: 200, body: "ok"))
        #expect(steps == [.seconds(2), .seconds(1)])
        #expect(records.map(\.outcome) == [.transport(.timeout), server.outcome(status: 200)])
        #expect(server.requestCount == 2)
        await server.abandonedHangs(atLeast: 1)
    }

    @Test("cancelling the task during an attempt stops with cancelled, not a transport failure", arguments: conformingAdapters)
    func cancelledDuringAttempt(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.hang, .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let executor = executor(ContractPolicy.standard())
        let request = ConformanceRequest(url: server.url)
        let task = Task {
            await capture { () async throws(RetryFailure) in try await adapter.send(request, on: executor) }
        }
        await server.requests(atLeast: 1)
        task.cancel()
        let failure = try #require(await task.value.failure)
        expectCancellation(failure)
        #expect(failure.attempts.map(\.outcome) == [.transport(.cancelled)])
        // What the client threw on the way out is its own cancellation,
        // not a failure the executor's verdict hides.
        let thrown = try #require(failure.underlyingError)
        #expect(adapter.classifier.outcome(for: thrown) == .transport(.cancelled), "\(type(of: thrown)): \(thrown)")
        #expect(server.requestCount == 1)
        await server.abandonedHangs(atLeast: 1)
    }

    @Test("cancelling the task during a backoff wait stops with cancelled and sends nothing more", arguments: conformingAdapters)
    func cancelledDuringBackoff(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer([.respond(status: 503), .respond(status: 200)])
        defer { Task { try await server.shutdown() } }
        let executor = executor(ContractPolicy.standard())
        let request = ConformanceRequest(url: server.url)
        let task = Task {
            await capture { () async throws(RetryFailure) in try await adapter.send(request, on: executor) }
        }
        await server.requests(atLeast: 1)
        await clock.sleepers(atLeast: 1)
        task.cancel()
        let failure = try #require(await task.value.failure)
        expectCancellation(failure)
        #expect(failure.attempts.map(\.outcome) == [server.outcome(status: 503)])
        #expect(failure.underlyingError == nil)
        #expect(clock.sleeperCount == 0)
        #expect(server.requestCount == 1)
    }

    /// A cancelled request ends as the caller's cancellation: reason and
    /// kind `cancelled`, whatever the client threw on the way out, and
    /// reported to the observer as such.
    func expectCancellation(_ failure: RetryFailure, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(failure.reason == .cancelled, sourceLocation: sourceLocation)
        #expect(failure.error.kind == .cancelled, sourceLocation: sourceLocation)
        #expect(failure.error.transport == .cancelled, sourceLocation: sourceLocation)
        guard case .failed(_, let reason, _, _) = log.events.last else {
            Issue.record("the observer saw no failure: \(log.events)", sourceLocation: sourceLocation)
            return
        }
        #expect(reason == .cancelled, sourceLocation: sourceLocation)
    }

    @Test("an exhausted retry budget stops retrying", arguments: conformingAdapters)
    func budgetExhausted(adapter: any AdapterUnderTest) async throws {
        let server = try await adapter.startServer(Array(repeating: .respond(status: 503), count: 4))
        defer { Task { try await server.shutdown() } }
        // Tokens for one retry only.
        let budget = RetryBudgetConfiguration(capacity: 5, retryCost: 5)
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter,
            under: ContractPolicy.standard(attempts: 4, budget: budget), server: server, advancingAfter: [1])
        let failure = try #require(result.failure)
        #expect(failure.reason == .budgetExhausted)
        #expect(failure.error.kind == .status5xx)
        #expect(failure.attempts.count == 2)
        #expect(server.requestCount == 2)
        #expect(steps == [.seconds(1)])
    }

    @Test(
        "the observer sees the executor's own event sequence for the same script",
        arguments: adapters(for: "sameEventSequence"))
    func sameEventSequence(adapter: any AdapterUnderTest) async throws {
        let script = ReferenceRun.mixedScript
        let server = try await adapter.startServer(script.map(\.serverAction))
        defer { Task { try await server.shutdown() } }
        let policy = ContractPolicy.standard(attempts: 4)
        let (result, steps) = await send(
            ConformanceRequest(url: server.url), through: adapter, under: policy, server: server,
            advancingAfter: [1, 2, 3])
        #expect(try result.get().status == 200)
        #expect(steps == [.seconds(1), .seconds(3), .seconds(4)])
        let expected = await ReferenceRun.events(for: script, under: policy, origin: Self.origin)
        #expect(ReferenceRun.comparable(log.events) == ReferenceRun.comparable(expected))
    }
}
#endif
