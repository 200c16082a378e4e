import InMemoryTracing
import Instrumentation
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import RetryPolicyYAML
import Testing
import Tracing

/// Spans through swift-distributed-tracing, checked with its in-memory
/// tracer: one request span, one client span per attempt, and an event for
/// every decision.
@Suite("Tracing: a span per request and per attempt, an event per decision", .timeLimit(.minutes(1)))
struct TracingTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    func executor(_ policy: Policy, tracer: InMemoryTracer, attemptSpans: Bool = true) -> RetryExecutor<ManualClock> {
        RetryExecutor(
            decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin,
            tracing: RetryTracing(tracer: tracer, attemptSpans: attemptSpans))
    }

    func requestSpan(_ tracer: InMemoryTracer) throws -> FinishedInMemorySpan {
        let requests = tracer.finishedSpans.filter { $0.operationName == "retry_policy.request" }
        try #require(requests.count == 1, "one request span, got \(tracer.finishedSpans.map(\.operationName))")
        return requests[0]
    }

    func attemptSpans(_ tracer: InMemoryTracer) -> [FinishedInMemorySpan] {
        tracer.finishedSpans.filter { $0.kind == .client }.sorted {
            ($0.attributes.get("retry_policy.attempt")?.intValue ?? 0) < ($1.attributes.get("retry_policy.attempt")?.intValue ?? 0)
        }
    }

    @Test("a retried request: client spans under the request span, the resend count on resends only, a retry event with the rule's location")
    func retries() async throws {
        let tracer = InMemoryTracer()
        let policy = try PolicyLoader().loadPolicy(
            yaml: """
                version: 1
                name: traced
                attempts: 3
                backoff: {initial: 1s, max: 10s, multiplier: 2, jitter: none}
                rules:
                  - status: 503
                    error: status_5xx
                    action: retry
                default: {error: internal_error, action: stop}
                """, path: "traced.yaml")
        let executor = executor(policy, tracer: tracer)
        let operation = ScriptedOperation(statuses: [503, 503, 200])
        let request = RetryRequest(method: .get, endpoint: "movies")
        _ = await drive(clock, sleeps: 2) { [executor] in
            await RetryTracing.$requestURL.withValue("https://user:secret@api.example.com:8443/v3/movies?page=2&sig=abc") {
                await capture { () async throws(RetryFailure) in try await executor.runConcurrently(request, operation: operation.callAsFunction) }
            }
        }
        let root = try requestSpan(tracer)
        #expect(root.kind == .internal)
        #expect(root.attributes.get("retry_policy.policy") == .string("traced"))
        #expect(root.attributes.get("retry_policy.endpoint") == .string("movies"))
        #expect(root.attributes.get("retry_policy.outcome") == .string("success"))
        #expect(root.attributes.get("retry_policy.attempts") == .int64(3))
        #expect(root.attributes.get("url.full") == .string("https://api.example.com:8443/v3/movies?page=2&sig=REDACTED"))
        #expect(root.attributes.get("server.address") == .string("api.example.com"))

        let attempts = attemptSpans(tracer)
        #expect(attempts.map(\.operationName) == ["GET", "GET", "GET"])
        #expect(attempts.allSatisfy { $0.parentSpanID == root.spanID && $0.traceID == root.traceID })
        #expect(attempts.map { $0.attributes.get("http.request.resend_count") } == [nil, .int64(1), .int64(2)])
        #expect(attempts.map { $0.attributes.get("http.response.status_code") } == [.int64(503), .int64(503), .int64(200)])
        #expect(attempts.map { $0.attributes.get("error.type") } == [.string("status_5xx"), .string("status_5xx"), nil])
        #expect(attempts.map { $0.attributes.get("server.port") } == [.int64(8443), .int64(8443), .int64(8443)])
        #expect(attempts[0].status?.code == .error)
        #expect(attempts[2].status?.code != .error)

        let retries = root.events.filter { $0.name == "retry_policy.retry" }
        #expect(retries.map { $0.attributes.get("retry_policy.attempt") } == [.int64(1), .int64(2)])
        #expect(retries.map { $0.attributes.get("retry_policy.delay") } == [.double(1), .double(2)])
        #expect(retries.map { $0.attributes.get("retry_policy.reason") } == [.string("status_5xx"), .string("status_5xx")])
        #expect(retries.allSatisfy { $0.attributes.get("retry_policy.rule") == .string("traced.yaml:6:5") })
        // Spans take their times from the executor's clock: the second
        // attempt starts after the first backoff.
        #expect(attempts[1].startInstant.nanosecondsSinceEpoch == UInt64(origin.nanosecondsSince1970) + 1_000_000_000)
    }

    @Test("a stop: the request span ends in error with the stop's reason, as an attribute and an event")
    func stop() async throws {
        let tracer = InMemoryTracer()
        let executor = executor(TestPolicies.tmdb(jitter: .none), tracer: tracer)
        let operation = ScriptedOperation(statuses: [404])
        _ = await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        let root = try requestSpan(tracer)
        #expect(root.status?.code == .error)
        #expect(root.attributes.get("retry_policy.stop_reason") == .string("not_retryable"))
        #expect(root.attributes.get("error.type") == .string("network_error"))
        let stop = try #require(root.events.first { $0.name == "retry_policy.stop" })
        #expect(stop.attributes.get("retry_policy.stop_reason") == .string("not_retryable"))
        #expect(root.events.map(\.name) == ["retry_policy.stop"])
    }

    @Test("the budget running out is an event before the stop")
    func budgetExhausted() async throws {
        let tracer = InMemoryTracer()
        var policy = TestPolicies.tmdb(jitter: .none)
        policy.budget = RetryBudgetConfiguration(capacity: 5, retryCost: 5, timeoutRetryCost: 5, successRefund: 1)
        let executor = executor(policy, tracer: tracer)
        let operation = ScriptedOperation(statuses: [503, 503, 503])
        _ = await drive(clock, sleeps: 1) { [executor] in
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        let root = try requestSpan(tracer)
        #expect(root.events.map(\.name) == ["retry_policy.retry", "retry_policy.budget.exhausted", "retry_policy.stop"])
        #expect(root.attributes.get("retry_policy.stop_reason") == .string("budget_exhausted"))
    }

    @Test("a cooldown: a wait is an event with its length; a rejection is an event and the request sends nothing")
    func cooldown() async throws {
        for mode in [RetryAfterPolicy.Cooldown.wait, .reject] {
            let tracer = InMemoryTracer()
            let executor = executor(TestPolicies.mobileSDK(cooldown: mode), tracer: tracer)
            let limited = ScriptedOperation([.respond(FakeResponse(statusCode: 429, headers: ["Retry-After": "4"]))])
            _ = await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: limited.callAsFunction) }
            tracer.clearFinishedSpans()
            let next = ScriptedOperation(statuses: [200])
            _ = await drive(clock, sleeps: mode == .wait ? 1 : 0) { [executor] in
                await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: next.callAsFunction) }
            }
            let root = try requestSpan(tracer)
            if mode == .wait {
                let wait = try #require(root.events.first { $0.name == "retry_policy.cooldown.wait" })
                #expect(wait.attributes.get("retry_policy.delay") == .double(4))
                #expect(attemptSpans(tracer).count == 1)
            } else {
                #expect(root.events.map(\.name) == ["retry_policy.cooldown.reject", "retry_policy.stop"])
                #expect(attemptSpans(tracer).isEmpty)
                #expect(next.calls == 0)
            }
        }
    }

    @Test("a breaker: opening, the probe after the break and closing are events on the requests that caused them")
    func breaker() async throws {
        let tracer = InMemoryTracer()
        let executor = executor(ExecutorBreakerTests.policy(), tracer: tracer)
        for _ in 0..<2 {
            _ = await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(operation: ScriptedOperation(statuses: [503]).callAsFunction)
            }
        }
        let opened = tracer.finishedSpans.filter { $0.operationName == "retry_policy.request" }.last!
        let open = try #require(opened.events.first { $0.name == "retry_policy.breaker.open" })
        #expect(open.attributes.get("retry_policy.breaker.reason") == .string("consecutive_failures"))
        #expect(open.attributes.get("retry_policy.breaker.break") == .double(10))
        tracer.clearFinishedSpans()

        _ = await capture { () async throws(RetryFailure) in
            try await executor.runConcurrently(operation: ScriptedOperation(statuses: [200]).callAsFunction)
        }
        #expect(try requestSpan(tracer).events.map(\.name) == ["retry_policy.breaker.reject", "retry_policy.stop"])
        tracer.clearFinishedSpans()

        clock.advance(by: .seconds(10))
        _ = await capture { () async throws(RetryFailure) in
            try await executor.runConcurrently(operation: ScriptedOperation(statuses: [200]).callAsFunction)
        }
        #expect(try requestSpan(tracer).events.map(\.name) == ["retry_policy.breaker.probe", "retry_policy.breaker.close"])
    }

    @Test("hedging: a copy starting is an event, the copy the winner made redundant ends cancelled with an event")
    func hedging() async throws {
        let tracer = InMemoryTracer()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: ExecutorHedgingTests.policy()), clock: clock, wallClockNow: origin,
            tracing: RetryTracing(tracer: tracer))
        let server = ExecutorHedgingTests.Server(clock: clock, script: [1: (.seconds(10), 200), 2: (.milliseconds(30), 200)])
        let task = Task { try await executor.runConcurrently(RetryRequest(method: .get), operation: server.attempt) }
        await clock.sleepers(atLeast: 2)
        clock.advance(by: .milliseconds(100))
        await clock.sleepers(atLeast: 3)
        clock.advance(by: .milliseconds(30))
        #expect(try await task.value.attempt == 2)
        let root = try requestSpan(tracer)
        #expect(root.events.map(\.name) == ["retry_policy.hedge.start", "retry_policy.hedge.cancel"])
        let attempts = attemptSpans(tracer)
        #expect(attempts.count == 2)
        #expect(attempts[0].attributes.get("error.type") == .string("cancelled"))
        #expect(attempts[1].attributes.get("http.response.status_code") == .int64(200))
        #expect(attempts[1].attributes.get("http.request.resend_count") == .int64(1))
    }

    @Test("the operation runs in its attempt's context: a client's own spans nest under the attempt")
    func contextReachesOperation() async throws {
        let tracer = InMemoryTracer()
        let executor = executor(TestPolicies.tmdb(jitter: .none), tracer: tracer)
        let seen = LockedValue<[String?]>([])
        let operation = ScriptedOperation(statuses: [503, 200])
        _ = await drive(clock, sleeps: 1) { [executor] in
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently { context in
                    seen.withLock { $0.append(ServiceContext.current?.inMemorySpanContext?.spanID) }
                    // The client's span, as AsyncHTTPClient would make it.
                    let span = tracer.startSpan("client call", ofKind: .internal)
                    defer { span.end() }
                    return try await operation(context)
                }
            }
        }
        let attempts = attemptSpans(tracer)
        #expect(seen.withLock { $0 } == attempts.map(\.spanID))
        let inner = tracer.finishedSpans.filter { $0.operationName == "client call" }
        #expect(inner.map(\.parentSpanID) == attempts.map(\.spanID))
    }

    @Test("without attempt spans (a client that makes its own), attempts run in the request span's context")
    func withoutAttemptSpans() async throws {
        let tracer = InMemoryTracer()
        let executor = executor(TestPolicies.tmdb(jitter: .none), tracer: tracer, attemptSpans: false)
        let seen = LockedValue<[String?]>([])
        _ = await capture { () async throws(RetryFailure) in
            try await executor.runConcurrently { context in
                seen.withLock { $0.append(ServiceContext.current?.inMemorySpanContext?.spanID) }
                return FakeResponse(statusCode: 200)
            }
        }
        let root = try requestSpan(tracer)
        #expect(attemptSpans(tracer).isEmpty)
        #expect(seen.withLock { $0 } == [root.spanID])
    }

    @Test("the request span is a child of the caller's span; `run` in the caller's task traces the same way")
    func nestsUnderCaller() async throws {
        let tracer = InMemoryTracer()
        let executor = executor(TestPolicies.tmdb(jitter: .none), tracer: tracer)
        let operation = ScriptedOperation(statuses: [200])
        try await tracer.withSpan("caller") { _ in
            _ = try await executor.run { (context: AttemptContext) async throws -> FakeResponse in try await operation(context) }
        }
        let caller = try #require(tracer.finishedSpans.first { $0.operationName == "caller" })
        let root = try requestSpan(tracer)
        #expect(root.parentSpanID == caller.spanID)
        #expect(attemptSpans(tracer).map(\.parentSpanID) == [root.spanID])
    }

    @Test("no tracer bootstrapped: executors do not trace, and no request span is made")
    func notBootstrapped() {
        #expect(RetryTracing.bootstrapped == nil)
        let executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.tmdb()), clock: clock)
        #expect(executor.tracing == nil)
    }
}

extension SpanAttribute {
    var intValue: Int? {
        switch self {
        case .int64(let value): Int(value)
        case .int32(let value): Int(value)
        default: nil
        }
    }
}
