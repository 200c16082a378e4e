#if GRPC && AsyncHTTPClient  // the traits; grpc-swift, and the test clock driver of HTTPTestSupport
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCTestSupport
import HTTPTestSupport
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyGRPC
import RetryPolicyTesting
import Testing

/// The policy the cases are stated in: UNAVAILABLE retried after 1, 2,
/// 4 s (no jitter), RESOURCE_EXHAUSTED retried after the server's
/// pushback (up to 10 s), INVALID_ARGUMENT stopped.
enum GRPCTestPolicy {
    static func standard(attempts: Int = 3, hedgingDelay: Duration? = nil, perAttempt: Duration? = nil) -> Policy {
        var policy = Policy(
            name: "grpc",
            attempts: attempts,
            backoff: Backoff(initial: .seconds(1), max: .seconds(8), multiplier: 2, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(10), aboveCap: .stop),
            timeouts: TimeoutBudget(perAttempt: perAttempt),
            rules: [
                Rule(grpc: [.unavailable], error: .networkError, action: .retry),
                Rule(grpc: [.resourceExhausted], error: .status429, action: .retry),
                Rule(grpc: [.invalidArgument], error: .networkError, action: .stop),
            ],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        if let hedgingDelay { policy.hedging = HedgingPolicy(delay: hedgingDelay) }
        return policy
    }
}

typealias Retrying = RetryingClientTransport<HTTP2ClientTransport.Posix, ManualClock>

/// The retrying transport against a grpc-swift 2 server over HTTP/2 on
/// 127.0.0.1. Backoffs and hedging delays run on a `ManualClock` that the
/// test moves only once the server has received the calls expected by
/// then, so every asserted wait is exact.
@Suite("gRPC retrying transport", .serialized, .timeLimit(.minutes(2)))
struct RetryingClientTransportTests {
    let clock = ManualClock()
    let log = EventLog()
    let reported = LockedValue<[GRPCRetryDiagnostic]>([])

    func executor(_ policy: Policy) -> RetryExecutor<ManualClock> {
        RetryExecutor(
            decider: RetryDecider(policy: policy), clock: clock, wallClockNow: Timestamp(secondsSince1970: 1_750_000_000),
            observer: log.observer, tracing: nil)
    }

    func transport(
        _ server: ScriptedGRPCServer, _ policies: GRPCMethodPolicies<ManualClock>, maxReplayBytes: Int = 1 << 20
    ) throws -> Retrying {
        let reported = self.reported
        return RetryingClientTransport(
            wrapping: try HTTP2ClientTransport.Posix(
                target: .ipv4(address: "127.0.0.1", port: server.port), transportSecurity: .plaintext),
            policies: policies, maxReplayBytes: maxReplayBytes,
            diagnostics: { diagnostic in reported.withLock { $0.append(diagnostic) } })
    }

    /// Sends `messages` to `method` (one message for a unary call) and
    /// returns the reply's text or the call's error.
    static func call(
        _ transport: Retrying, _ method: MethodDescriptor = Scripted.unary, messages: [String] = ["hello"],
        options: CallOptions = .defaults
    ) async -> Result<String, RPCError> {
        do {
            return .success(
                try await withGRPCClient(transport: transport) { client in
                    let request = StreamingClientRequest(of: [UInt8].self) { writer in
                        for message in messages { try await writer.write(Array(message.utf8)) }
                    }
                    if method.type == .serverStreaming {
                        return try await client.serverStreaming(
                            request: ClientRequest(message: Array(messages[0].utf8)), descriptor: method,
                            serializer: BytesCoder(), deserializer: BytesCoder(), options: options
                        ) { response in
                            var text = ""
                            for try await message in response.messages { text += String(decoding: message, as: UTF8.self) }
                            return text
                        }
                    }
                    return try await client.clientStreaming(
                        request: request, descriptor: method, serializer: BytesCoder(), deserializer: BytesCoder(),
                        options: options
                    ) { response in String(decoding: try response.message, as: UTF8.self) }
                })
        } catch let error as RPCError {
            return .failure(error)
        } catch {
            return .failure(RPCError(code: .unknown, message: "\(error)"))
        }
    }

    /// `call` with the clock moved to the next wait's end once the server
    /// has received each count of `advancingAfter`.
    func send(
        _ transport: Retrying, to server: ScriptedGRPCServer, _ method: MethodDescriptor = Scripted.unary,
        messages: [String] = ["hello"], options: CallOptions = .defaults, advancingAfter counts: [Int] = []
    ) async -> (result: Result<String, RPCError>, steps: [Duration]) {
        await drive(clock, requestsBeforeEachAdvance: counts, requestsSeen: { await server.calls(atLeast: $0) }) {
            await Self.call(transport, method, messages: messages, options: options)
        }
    }

    static func pushback(_ value: String) -> Metadata {
        var metadata = Metadata()
        metadata.addString(value, forKey: "grpc-retry-pushback-ms")
        return metadata
    }

    @Test("UNAVAILABLE, UNAVAILABLE, OK retries to success, counting earlier attempts (gRFC A6)")
    func retriesToSuccess() async throws {
        let server = try await ScriptedGRPCServer.start([.fail(.unavailable), .fail(.unavailable), .ok("stock: 3")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let (result, steps) = await send(transport, to: server, advancingAfter: [1, 2])
        await server.shutdown()
        #expect(try result.get() == "stock: 3")
        #expect(steps == [.seconds(1), .seconds(2)])
        #expect(server.received.map(\.previousAttempts) == [nil, "1", "2"])
        #expect(server.received.map(\.messages) == Array(repeating: [Array("hello".utf8)], count: 3))
        #expect(log.events.last == .succeeded(attempts: 3, elapsed: .seconds(3)))
    }

    @Test("a persistent UNAVAILABLE ends after the policy's attempts with the server's status")
    func attemptsExhausted() async throws {
        let server = try await ScriptedGRPCServer.start(Array(repeating: .fail(.unavailable), count: 4))
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let (result, steps) = await send(transport, to: server, advancingAfter: [1, 2])
        await server.shutdown()
        #expect(result.failure?.code == .unavailable)
        #expect(result.failure?.message == "scripted")
        #expect(server.callCount == 3)
        #expect(steps == [.seconds(1), .seconds(2)])
        // Why the policy stopped comes with the server's status.
        let failure = try #require(result.failure?.cause as? RetryFailure)
        #expect(failure.reason == .attemptsExhausted)
        #expect(failure.attempts.count == 3)
        #expect(failure.error.grpcStatus == .unavailable)
    }

    @Test("an attempt past the policy's per-attempt limit ends the call with DEADLINE_EXCEEDED")
    func perAttemptLimit() async throws {
        let server = try await ScriptedGRPCServer.start([.hang])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard(attempts: 1, perAttempt: .seconds(2)))))
        let (result, steps) = await send(transport, to: server, advancingAfter: [1])
        await server.abandonedHangs(atLeast: 1)
        await server.shutdown()
        let failure = try #require(result.failure)
        #expect(failure.code == .deadlineExceeded, "\(failure)")
        #expect(steps == [.seconds(2)])
        // The policy has no rule for timeouts: its default stops.
        let cause = try #require(failure.cause as? RetryFailure)
        #expect(cause.reason == .notRetryable)
        #expect(cause.error.transport == .timeout)
    }

    @Test("RESOURCE_EXHAUSTED with grpc-retry-pushback-ms waits the server's delay exactly")
    func pushbackWaited() async throws {
        let server = try await ScriptedGRPCServer.start([
            .fail(.resourceExhausted, metadata: Self.pushback("7000")), .ok("done"),
        ])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let (result, steps) = await send(transport, to: server, advancingAfter: [1])
        await server.shutdown()
        #expect(try result.get() == "done")
        #expect(steps == [.seconds(7)])
        #expect(log.waitCauses == [.server])
    }

    @Test("a negative or malformed pushback stops at once (gRFC A6)", arguments: ["-1", "soon", "1.5", ""])
    func pushbackRefusal(value: String) async throws {
        let server = try await ScriptedGRPCServer.start([
            .fail(.resourceExhausted, metadata: Self.pushback(value)), .ok("done"),
        ])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let (result, _) = await send(transport, to: server)
        await server.shutdown()
        let failure = try #require(result.failure)
        #expect(failure.code == .resourceExhausted)
        #expect(failure.metadata[stringValues: "grpc-retry-pushback-ms"].first(where: { _ in true }) == value)
        #expect(server.callCount == 1)
        #expect(clock.totalSleeps == 0)
    }

    @Test("INVALID_ARGUMENT is not retried")
    func notRetried() async throws {
        let server = try await ScriptedGRPCServer.start([.fail(.invalidArgument), .ok("done")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let (result, _) = await send(transport, to: server)
        await server.shutdown()
        #expect(result.failure?.code == .invalidArgument)
        #expect((result.failure?.cause as? RetryFailure)?.reason == .notRetryable)
        #expect(server.callCount == 1)
        #expect(clock.totalSleeps == 0)
    }

    @Test("a client stream's messages are replayed on each attempt")
    func clientStreamReplayed() async throws {
        let server = try await ScriptedGRPCServer.start([.fail(.unavailable), .ok("3 items")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let messages = ["apple", "", String(repeating: "pear", count: 1000)]
        let (result, _) = await send(transport, to: server, Scripted.collect, messages: messages, advancingAfter: [1])
        await server.shutdown()
        #expect(try result.get() == "3 items")
        #expect(server.received.map(\.messages) == Array(repeating: messages.map { Array($0.utf8) }, count: 2))
        #expect(server.received.map(\.previousAttempts) == [nil, "1"])
    }

    @Test("a request past maxReplayBytes fails with RESOURCE_EXHAUSTED before it is sent")
    func replayBound() async throws {
        let server = try await ScriptedGRPCServer.start([.ok("done")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())), maxReplayBytes: 100)
        let (result, _) = await send(transport, to: server, Scripted.collect, messages: ["x", String(repeating: "y", count: 100)])
        await server.shutdown()
        #expect(result.failure?.code == .resourceExhausted)
        #expect(result.failure?.message.contains("maxReplayBytes") == true)
        #expect(server.callCount == 0)
    }

    @Test("a server-streaming call is sent once, with a diagnostic")
    func serverStreamingOnce() async throws {
        let server = try await ScriptedGRPCServer.start([.fail(.unavailable), .ok("done")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let (result, _) = await send(transport, to: server, Scripted.watch)
        await server.shutdown()
        #expect(result.failure?.code == .unavailable)
        #expect(server.callCount == 1)
        #expect(reported.withLock { $0 } == [.oneAttempt(method: "test.Scripted/Watch", reason: .streamingResponse)])
    }

    @Test("a method without a policy is sent once, as it is")
    func methodWithoutPolicy() async throws {
        let server = try await ScriptedGRPCServer.start([.fail(.unavailable), .fail(.unavailable), .ok("done")])
        let policies = GRPCMethodPolicies.byName(["test.Scripted/Collect": executor(GRPCTestPolicy.standard())])
        let (result, _) = await send(try transport(server, policies), to: server, Scripted.unary)
        #expect(result.failure?.code == .unavailable)
        #expect(server.callCount == 1)
        // The method named gets the policy.
        let (named, _) = await send(try transport(server, policies), to: server, Scripted.collect, advancingAfter: [2])
        await server.shutdown()
        #expect(try named.get() == "done")
        #expect(server.callCount == 3)
    }

    @Test("cancelling the calling task mid-backoff ends the call at once")
    func cancelledDuringBackoff() async throws {
        let server = try await ScriptedGRPCServer.start([.fail(.unavailable), .ok("done")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        let task = Task { await Self.call(transport) }
        await server.calls(atLeast: 1)
        await clock.sleepers(atLeast: 1)
        task.cancel()
        let result = await task.value
        await server.shutdown()
        #expect(result.failure?.code == .cancelled, "\(String(describing: result.failure))")
        #expect(server.callCount == 1)
        #expect(clock.now.offset == .zero)
    }

    @Test("the call's deadline ends it during a backoff")
    func deadlineDuringBackoff() async throws {
        let server = try await ScriptedGRPCServer.start([.fail(.unavailable), .ok("done")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard())))
        var options = CallOptions.defaults
        // gRPC measures the deadline on the continuous clock; the backoff
        // (1 s on the manual clock) is never moved, so only the deadline
        // can end the call.
        options.timeout = .milliseconds(300)
        let result = await Self.call(transport, options: options)
        await server.shutdown()
        #expect(result.failure?.code == .deadlineExceeded)
        #expect(server.callCount == 1)
        #expect(clock.totalSleeps == 1)
    }

    @Test("a hedging policy sends a second copy after its delay; the first answer wins")
    func hedged() async throws {
        let server = try await ScriptedGRPCServer.start([.hang, .ok("from the hedge")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard(attempts: 2, hedgingDelay: .seconds(1)))))
        let (result, steps) = await send(transport, to: server, advancingAfter: [1])
        await server.shutdown()
        #expect(try result.get() == "from the hedge")
        #expect(steps == [.seconds(1)])
        #expect(server.received.map(\.previousAttempts) == [nil, "1"])
    }

    @Test("grpc-swift's own retry on the same call is reported once, with the amplification")
    func twoRetryLayers() async throws {
        let server = try await ScriptedGRPCServer.start([.ok("one"), .ok("two")])
        let transport = try transport(server, .all(executor(GRPCTestPolicy.standard(attempts: 4))))
        var options = CallOptions.defaults
        options.executionPolicy = .retry(
            RetryPolicy(
                maxAttempts: 3, initialBackoff: .seconds(1), maxBackoff: .seconds(1), backoffMultiplier: 1,
                retryableStatusCodes: [.unavailable]))
        let replies = try await withGRPCClient(transport: transport) { client in
            var replies: [String] = []
            for _ in 1...2 {
                replies.append(
                    try await client.unary(
                        request: ClientRequest(message: Array("hello".utf8)), descriptor: Scripted.unary,
                        serializer: BytesCoder(), deserializer: BytesCoder(), options: options
                    ) { String(decoding: try $0.message, as: UTF8.self) })
            }
            return replies
        }
        await server.shutdown()
        #expect(replies == ["one", "two"])
        let diagnostics = reported.withLock { $0 }
        #expect(diagnostics == [.twoRetryLayers(method: "test.Scripted/Unary", grpcAttempts: 3, policyAttempts: 4)])
        #expect(diagnostics.first?.amplification == 12)
    }
}

extension Result where Failure == RPCError {
    var failure: RPCError? { if case .failure(let error) = self { error } else { nil } }
}
#endif
