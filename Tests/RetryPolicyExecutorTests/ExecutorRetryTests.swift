import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

@Suite("Executor: retries, waits and the final error")
struct ExecutorRetryTests {
    let clock = ManualClock()
    let origin = Timestamp(secondsSince1970: 1_750_000_000)

    func executor(_ policy: Policy, log: EventLog? = nil) -> RetryExecutor<ManualClock> {
        RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, wallClockNow: origin, observer: log?.observer)
    }

    @Test("a first-try success returns the response after one attempt and no wait")
    func firstTrySuccess() async throws {
        let operation = ScriptedOperation(statuses: [200])
        let response = try await executor(TestPolicies.tmdb()).runConcurrently(operation: operation.callAsFunction)
        #expect(response.statusCode == 200)
        #expect(operation.calls == 1)
        #expect(clock.totalSleeps == 0)
    }

    @Test("503 then 200: one retry after the un-jittered backoff, then the success")
    func serverErrorThenSuccess() async throws {
        let operation = ScriptedOperation(statuses: [503, 200])
        let log = EventLog()
        let executor = self.executor(TestPolicies.tmdb(jitter: .none), log: log)
        let (result, steps) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(operation.calls == 2)
        #expect(steps == [.seconds(1)])
        #expect(log.waitCauses == [.backoff])
    }

    @Test("backoff doubles per retry up to the attempts limit, then the policy's error is thrown with the history")
    func attemptsExhausted() async throws {
        let operation = ScriptedOperation(statuses: [500, 502, 503, 504])
        // Observed, so that the request is timed and its records carry
        // when each attempt started (an unobserved request's retries
        // decided by the backoff alone read no clock).
        let executor = self.executor(TestPolicies.tmdb(jitter: .none), log: EventLog())
        let (result, steps) = await drive(clock, sleeps: 3) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        let failure = try #require(result.failure)
        #expect(steps == [.seconds(1), .seconds(2), .seconds(4)])
        #expect(operation.calls == 4)
        #expect(failure.error.kind == .status5xx)
        #expect(failure.error.statusCode == 504)
        #expect(failure.reason == .attemptsExhausted)
        #expect(failure.attempts.map(\.number) == [1, 2, 3, 4])
        #expect(failure.attempts.map(\.outcome) == [.status(500), .status(502), .status(503), .status(504)])
        #expect(failure.attempts.map(\.startedAt) == [.zero, .seconds(1), .seconds(3), .seconds(7)])
        #expect((failure.lastResponse as? FakeResponse)?.statusCode == 504)
    }

    @Test("a non-retryable status is thrown at once without a retry")
    func nonRetryableStopsImmediately() async throws {
        let operation = ScriptedOperation(statuses: [404, 200])
        let result = await capture { () async throws(RetryFailure) in
            try await executor(TestPolicies.tmdb()).runConcurrently(operation: operation.callAsFunction)
        }
        let failure = try #require(result.failure)
        #expect(operation.calls == 1)
        #expect(failure.error.kind == .networkError)
        #expect(failure.error.statusCode == 404)
        #expect(failure.reason == .notRetryable)
        #expect(clock.totalSleeps == 0)
    }

    @Test("429 with Retry-After: 2 waits exactly the server's delay, not the backoff")
    func retryAfterDeltaSeconds() async throws {
        let operation = ScriptedOperation([
            .respond(FakeResponse(statusCode: 429, headers: ["retry-after": "2"])), .respond(FakeResponse(statusCode: 200)),
        ])
        let log = EventLog()
        let executor = self.executor(TestPolicies.tmdb(), log: log)
        let (result, steps) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(steps == [.seconds(2)])
        #expect(log.waitCauses == [.server])
    }

    @Test("429 with an HTTP-date Retry-After waits until that date on the executor's timeline")
    func retryAfterHTTPDate() async throws {
        // origin is 2025-06-15T15:06:40Z; the server asks for 15:06:45.
        let operation = ScriptedOperation([
            .respond(FakeResponse(statusCode: 429, headers: ["Retry-After": "Sun, 15 Jun 2025 15:06:45 GMT"])),
            .respond(FakeResponse(statusCode: 200)),
        ])
        let executor = self.executor(TestPolicies.tmdb())
        let (result, steps) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        #expect(try result.get().statusCode == 200)
        #expect(steps == [.seconds(5)])
    }

    @Test("a Retry-After above the cap stops with retry_after_too_long and keeps the server's value")
    func retryAfterAboveCap() async throws {
        let operation = ScriptedOperation([.respond(FakeResponse(statusCode: 429, headers: ["Retry-After": "3600"]))])
        let result = await capture { () async throws(RetryFailure) in
            try await executor(TestPolicies.tmdb()).runConcurrently(operation: operation.callAsFunction)
        }
        let failure = try #require(result.failure)
        #expect(failure.reason == .retryAfterTooLong)
        #expect(failure.error.kind == .status429)
        #expect(failure.error.retryAfter == .seconds(3600))
        #expect(operation.calls == 1)
    }

    @Test("thrown errors are classified: a lost connection is retried, a decoding failure is not")
    func thrownErrorsAreClassified() async throws {
        let operation = ScriptedOperation([
            .fail(TransportError(.connectionLost, detail: "reset by peer")),
            .fail(TransportError(.decoding, detail: "bad JSON")),
        ])
        let executor = self.executor(TestPolicies.appClient())
        let (result, steps) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        let failure = try #require(result.failure)
        #expect(steps == [.milliseconds(500)])
        #expect(failure.error.kind == .decodingFailed)
        #expect(failure.error.transport == .decoding)
        #expect(failure.error.detail == "decoding: bad JSON")
        #expect(failure.reason == .notRetryable)
        #expect(failure.underlyingError is TransportError)
        #expect(failure.attempts.map(\.errorDescription) == ["connection_lost: reset by peer", "decoding: bad JSON"])
    }

    @Test("an app's own error type is mapped by a custom classifier")
    func customClassifier() async throws {
        enum NetworkError: Error { case serverError(Int), noConnection }
        let classifier = ErrorClassifier { error in
            switch error as? NetworkError {
            case .serverError(let code): .status(code)
            case .noConnection: .transport(.offline)
            case nil: nil
            }
        }
        var classified = executor(TestPolicies.appClient())
        classified.classifier = classifier
        let calls = Counter()
        let (result, _) = await drive(clock, sleeps: 2) { [classified] in
            await capture { () async throws(RetryFailure) -> Int in
                try await classified.runConcurrently { context -> Int in
                    calls.increment()
                    switch context.attempt {
                    case 1: throw NetworkError.noConnection
                    case 2: throw NetworkError.serverError(503)
                    default: return 42
                    }
                }
            }
        }
        #expect(try result.get() == 42)
        #expect(calls.value == 3)
    }

    @Test("a POST is not retried unless the caller marks it idempotent")
    func idempotencyGating() async throws {
        let post = ScriptedOperation(statuses: [503, 200])
        let result = await capture { () async throws(RetryFailure) in
            try await self.executor(TestPolicies.tmdb()).runConcurrently(RetryRequest(method: .post), operation: post.callAsFunction)
        }
        #expect(result.failure?.reason == .notIdempotent)
        #expect(post.calls == 1)

        let marked = ScriptedOperation(statuses: [503, 200])
        let executor = self.executor(TestPolicies.tmdb())
        let (second, _) = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(RetryRequest(method: .post, markedIdempotent: true), operation: marked.callAsFunction)
            }
        }
        #expect(try second.get().statusCode == 200)
        #expect(marked.calls == 2)
    }

    @Test("a seeded generator makes jittered waits reproducible and within the backoff bounds")
    func seededJitter() async throws {
        func waits(seed: UInt64) async -> [Duration] {
            let clock = ManualClock()
            let executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.tmdb()), clock: clock)
            let operation = ScriptedOperation(statuses: [503, 503, 503, 200])
            let (_, steps) = await drive(clock, sleeps: 3) {
                await capture { () async throws(RetryFailure) in
                    var generator = SplitMix64(seed: seed)
                    return try await executor.runConcurrently(using: &generator, operation: operation.callAsFunction)
                }
            }
            return steps
        }
        let first = await waits(seed: 7)
        #expect(first == (await waits(seed: 7)))
        #expect(first != (await waits(seed: 8)))
        for (index, wait) in first.enumerated() {
            #expect(wait >= .zero && wait <= .seconds(1 << index))
        }
    }

    @Test("the observer sees every attempt, decision and wait in order")
    func observerTimeline() async throws {
        let log = EventLog()
        let operation = ScriptedOperation(statuses: [503, 200])
        let executor = self.executor(TestPolicies.tmdb(jitter: .none), log: log)
        _ = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in try await executor.runConcurrently(operation: operation.callAsFunction) }
        }
        let names = log.events.map { event -> String in
            switch event {
            case .attemptStarted(let number, let at): "start \(number) at \(at)"
            case .attemptFinished(let record): "finish \(record.number) \(record.decision.isRetry ? "retry" : "done")"
            case .waiting(let delay, let cause): "wait \(delay) \(cause)"
            case .refreshingCredentials: "refresh"
            case .succeeded(let attempts, _): "succeeded after \(attempts)"
            case .failed(let error, _, _, _): "failed \(error.kind)"
            case .circuitBreaker(let transition): "breaker \(transition.state)"
            case .nextHedge(let delay): "next hedge \(delay.map(\.description) ?? "none")"
            }
        }
        #expect(names == [
            "start 1 at 0.0 seconds", "finish 1 retry", "wait 1.0 seconds backoff",
            "start 2 at 1.0 seconds", "finish 2 done", "succeeded after 2",
        ])
    }
}

/// A thread-safe call counter.
final class Counter: Sendable {
    private let storage = LockedValue(0)
    func increment() { storage.withLock { $0 += 1 } }
    var value: Int { storage.withLock { $0 } }
}

