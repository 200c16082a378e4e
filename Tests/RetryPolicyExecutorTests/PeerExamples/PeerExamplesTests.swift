import Foundation
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import RetryPolicyTesting
import RetryPolicyYAML
import Testing

/// A wrapped client that answers from a script and counts what it was
/// sent. Not `Sendable`: the decorator runs it in the caller's task.
final class ScriptedClient: HTTPClient {
    var script: [APIResponse]
    var sent = 0

    init(_ script: [APIResponse]) { self.script = script }

    func perform(request: APIRequest) async throws -> APIResponse {
        sent += 1
        return script[min(sent - 1, script.count - 1)]
    }
}

/// Says when a request reached it, then hangs until cancelled and throws
/// the cancellation.
struct HangingClient: HTTPClient {
    let started: AsyncStream<Void>.Continuation

    func perform(request: APIRequest) async throws -> APIResponse {
        started.yield()
        try await Task.sleep(for: .seconds(86_400))  // ended by the cancellation, not by time
        return APIResponse(statusCode: 200)
    }
}

/// The examples of docs/executor.md, held to what the clients they stand
/// for do: seed 000's decorator, seed 003's `retry`, seed 002's
/// `withRetry` with refresh-once.
@Suite struct PeerExamplesTests {
    /// Seed 000's policy, with the condition the decorator reports.
    static let decoratorPolicy = try! PolicyLoader().loadPolicy(
        yaml: """
            version: 1
            name: tmdb-decorator
            attempts: 4
            backoff: {initial: 1s, max: 30s, multiplier: 2, jitter: full}
            retry_after: {cap: 60s}
            conditions: [malformed_body]
            rules:
              - {status: 429, error: status_429, action: retry}
              - {status: 5xx, error: status_5xx, action: retry}
              - {condition: malformed_body, error: status_5xx, action: retry}
              - {status: 4xx, error: network_error, action: stop}
            default: {error: internal_error, action: stop}
            """, path: "tmdb-decorator.yaml")

    static let html = "<!DOCTYPE html><html><body>502 Bad Gateway</body></html>"

    func decorator(_ client: some HTTPClient, clock: SkippingClock) -> RetryHTTPClient<some HTTPClient, SkippingClock> {
        RetryHTTPClient(wrapped: client, executor: RetryExecutor(decider: RetryDecider(policy: Self.decoratorPolicy), clock: clock))
    }

    // MARK: Seed 000: the decorator

    @Test func retriesServerErrorsWithCappedJitteredBackoffThenReturnsTheSuccess() async throws {
        let clock = SkippingClock()
        let client = ScriptedClient([APIResponse(statusCode: 503), APIResponse(statusCode: 502), APIResponse(statusCode: 200, body: "{}")])
        let response = try await decorator(client, clock: clock).perform(request: APIRequest(path: "/movie/550"))
        #expect(response.statusCode == 200)
        #expect(client.sent == 3)
        // Full jitter: each delay is drawn from [0, 1 s x 2^(k-1)].
        #expect(clock.sleeps.count == 2)
        #expect(zip(clock.sleeps, [Duration.seconds(1), .seconds(2)]).allSatisfy { $0 >= .zero && $0 <= $1 })
    }

    @Test func returnsTheLastResponseWhenRetriesRunOut() async throws {
        let clock = SkippingClock()
        let client = ScriptedClient([APIResponse(statusCode: 503, body: "down for maintenance")])
        let response = try await decorator(client, clock: clock).perform(request: APIRequest(path: "/movie/550"))
        #expect(response.statusCode == 503)
        #expect(response.body == "down for maintenance")
        #expect(client.sent == 4)  // maxRetries 3
        #expect(clock.sleeps.count == 3)
    }

    @Test func honoursRetryAfterExactly() async throws {
        let clock = SkippingClock()
        let client = ScriptedClient([APIResponse(statusCode: 429, headers: ["Retry-After": "7"]), APIResponse(statusCode: 200)])
        let response = try await decorator(client, clock: clock).perform(request: APIRequest(path: "/movie/550"))
        #expect(response.statusCode == 200)
        #expect(clock.sleeps == [.seconds(7)])
    }

    @Test func aMalformedSuccessIsRetried() async throws {
        let clock = SkippingClock()
        let client = ScriptedClient([APIResponse(statusCode: 200, body: Self.html), APIResponse(statusCode: 200, body: "{\"id\":550}")])
        let response = try await decorator(client, clock: clock).perform(request: APIRequest(path: "/movie/550"))
        #expect(response.body == "{\"id\":550}")
        #expect(client.sent == 2)
    }

    @Test func aPostIsNotRetried() async throws {
        let clock = SkippingClock()
        let client = ScriptedClient([APIResponse(statusCode: 503), APIResponse(statusCode: 200)])
        let response = try await decorator(client, clock: clock).perform(request: APIRequest(method: .post, path: "/list/1/items"))
        #expect(response.statusCode == 503)
        #expect(client.sent == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func anUnsafeGetIsNotRetried() async throws {
        let clock = SkippingClock()
        let client = ScriptedClient([APIResponse(statusCode: 503), APIResponse(statusCode: 200)])
        let request = APIRequest(path: "/list/1/clear", changesState: true)
        let response = try await decorator(client, clock: clock).perform(request: request)
        #expect(response.statusCode == 503)
        #expect(client.sent == 1)
    }

    @Test func cancellationEndsTheRequestWithTheAttemptsRecordAndError() async throws {
        let clock = SkippingClock()
        let (started, signal) = AsyncStream<Void>.makeStream()
        let client = decorator(HangingClient(started: signal), clock: clock)
        let task = Task { try await client.perform(request: APIRequest(path: "/movie/550")) }
        var iterator = started.makeAsyncIterator()
        await iterator.next()  // the attempt is in flight
        task.cancel()
        let failure = try #require(await #expect(throws: RetryFailure.self) { try await task.value })
        #expect(failure.reason == .cancelled)
        #expect(failure.kind == .cancelled)
        // The attempt is recorded, with what it threw.
        #expect(failure.underlyingError is CancellationError)
        #expect(failure.attempts.count == 1)
        #expect(failure.attempts.first?.outcome == .transport(.cancelled))
        #expect(clock.sleeps.isEmpty)
    }

    // MARK: Seed 003: retry(maxAttempts:clock:operation:strategy:)

    @MainActor @Test func retriesEveryErrorByDefaultWithoutDelayAndKeepsTheCallersIsolation() async throws {
        struct Flaky: Error {}
        // Not Sendable, touched from the operation on the main actor.
        final class Counter { var calls = 0 }
        let counter = Counter()
        let clock = SkippingClock()
        let value = try await retry(clock: clock) { () throws(Flaky) -> Int in
            MainActor.assertIsolated()
            counter.calls += 1
            if counter.calls < 3 { throw Flaky() }
            return counter.calls
        }
        #expect(value == 3)
        #expect(clock.sleeps.allSatisfy { $0 == .zero })
    }

    @Test func rethrowsTheOperationsLastErrorWhenAttemptsRunOut() async throws {
        struct Flaky: Error, Equatable { var attempt: Int }
        let clock = SkippingClock()
        let calls = LockedValue(0)
        await #expect(throws: Flaky(attempt: 5)) {
            try await retry(maxAttempts: 5, clock: clock) { () throws(Flaky) -> Int in
                let attempt = calls.withLock { $0 += 1; return $0 }
                throw Flaky(attempt: attempt)
            }
        }
        #expect(calls.withLock { $0 } == 5)
    }

    @Test func aStrategyStopsOrBacksOffPerError() async throws {
        struct TooManyRequests: Error { var retryAfter: Duration }
        struct Fatal: Error {}
        enum Failure: Error { case tooMany(TooManyRequests), fatal(Fatal) }
        let clock = SkippingClock()
        let calls = LockedValue(0)
        await #expect(throws: Failure.self) {
            try await retry(clock: clock) { () throws(Failure) -> Int in
                let call = calls.withLock { $0 += 1; return $0 }
                throw call == 1 ? .tooMany(TooManyRequests(retryAfter: .seconds(2))) : .fatal(Fatal())
            } strategy: { error in
                if case .tooMany(let busy) = error {
                    return .backoff(Backoff(initial: busy.retryAfter, max: busy.retryAfter, multiplier: 1, jitter: .none))
                }
                return .stop
            }
        }
        #expect(calls.withLock { $0 } == 2)
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test func aConstantBackoffWaitsBetweenEveryAttempt() async throws {
        let clock = SkippingClock()
        let calls = LockedValue(0)
        struct Flaky: Error {}
        _ = try? await retry(maxAttempts: 5, clock: clock) { () throws(Flaky) -> Int in
            calls.withLock { $0 += 1 }
            throw Flaky()
        } strategy: { _ in .backoff(Backoff(initial: .seconds(2), max: .seconds(2), multiplier: 1, jitter: .none)) }
        #expect(calls.withLock { $0 } == 5)
        #expect(clock.sleeps == Array(repeating: .seconds(2), count: 4))
    }

    @Test func aCancelledTaskRunsTheFirstAttemptAsTheSeedDoes() async throws {
        struct Flaky: Error {}
        let calls = LockedValue(0)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await retry(clock: SkippingClock()) { () throws(Flaky) -> Int in
                calls.withLock { $0 += 1 }
                return 1
            }
        }
        #expect(try await task.value == 1)
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aFailureInACancelledTaskThrowsCancellationErrorWithoutARetry() async throws {
        struct Flaky: Error {}
        let calls = LockedValue(0)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await retry(clock: SkippingClock()) { () throws(Flaky) -> Int in
                calls.withLock { $0 += 1 }
                throw Flaky()
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aCancelledBackoffThrowsCancellationErrorNotTheOperationsError() async throws {
        struct Flaky: Error {}
        let clock = ManualClock()
        let calls = LockedValue(0)
        let task = Task {
            try await retry(maxAttempts: 5, clock: clock) { () throws(Flaky) -> Int in
                calls.withLock { $0 += 1 }
                throw Flaky()
            } strategy: { _ in .backoff(Backoff(initial: .seconds(2), max: .seconds(2), multiplier: 1, jitter: .none)) }
        }
        await clock.sleepers(atLeast: 1)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(calls.withLock { $0 } == 1)
    }

    @Test func aPolicyIsCompiledOncePerMaxAttempts() {
        let first = RetryDeciders.retryingEveryError(maxAttempts: 4)
        #expect(first.compiledPolicy === RetryDeciders.retryingEveryError(maxAttempts: 4).compiledPolicy)
        #expect(first.compiledPolicy !== RetryDeciders.retryingEveryError(maxAttempts: 2).compiledPolicy)
        #expect(first.policy.attempts == 4)
    }

    // MARK: Seed 002: withRetry with refresh-once

    static let withRetryFile = try! PolicyLoader().loadPolicy(yaml: withRetryPolicy, path: "with-retry.yaml")

    @Test func retriesServerErrorsWithDoublingDelays() async throws {
        let clock = SkippingClock()
        let calls = LockedValue(0)
        let value = try await withRetry(policy: Self.withRetryFile, clock: clock, refreshToken: {}) { () throws(NetworkError) -> String in
            let call = calls.withLock { $0 += 1; return $0 }
            if call < 3 { throw .serverError(503) }
            return "ok"
        }
        #expect(value == "ok")
        #expect(clock.sleeps == [.seconds(1), .seconds(2)])
    }

    @Test func aNonRetryableErrorIsThrownAtOnce() async throws {
        let clock = SkippingClock()
        let calls = LockedValue(0)
        await #expect(throws: NetworkError.notFound) {
            try await withRetry(policy: Self.withRetryFile, clock: clock, refreshToken: {}) { () throws(NetworkError) -> String in
                calls.withLock { $0 += 1 }
                throw .notFound
            }
        }
        #expect(calls.withLock { $0 } == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func a401RefreshesTheTokenOnceAndRetries() async throws {
        let clock = SkippingClock()
        let refreshes = LockedValue(0)
        let calls = LockedValue(0)
        let value = try await withRetry(
            policy: Self.withRetryFile, clock: clock, refreshToken: { refreshes.withLock { $0 += 1 } }
        ) { () throws(NetworkError) -> String in
            let call = calls.withLock { $0 += 1; return $0 }
            // The first token has expired; the refreshed one works.
            if call == 1 { throw .unauthorized }
            return "profile"
        }
        #expect(value == "profile")
        #expect(refreshes.withLock { $0 } == 1)
        #expect(calls.withLock { $0 } == 2)
    }

    @Test func a401AfterTheRefreshIsThrown() async throws {
        let clock = SkippingClock()
        let refreshes = LockedValue(0)
        let calls = LockedValue(0)
        await #expect(throws: NetworkError.unauthorized) {
            try await withRetry(
                policy: Self.withRetryFile, clock: clock, refreshToken: { refreshes.withLock { $0 += 1 } }
            ) { () throws(NetworkError) -> String in
                calls.withLock { $0 += 1 }
                throw .unauthorized
            }
        }
        #expect(refreshes.withLock { $0 } == 1)
        #expect(calls.withLock { $0 } == 2)
    }

    @Test func lostConnectionsAreRetriedUpToTheAttempts() async throws {
        let clock = SkippingClock()
        let calls = LockedValue(0)
        await #expect(throws: NetworkError.noConnection) {
            try await withRetry(policy: Self.withRetryFile, clock: clock, refreshToken: {}) { () throws(NetworkError) -> String in
                calls.withLock { $0 += 1 }
                throw .noConnection
            }
        }
        #expect(calls.withLock { $0 } == 3)
        #expect(clock.sleeps == [.seconds(1), .seconds(2)])
    }

    // MARK: The documentation shows these files

    @Test(arguments: ["decorator", "retry", "withRetry"])
    func docsShowExactlyTheCompiledExample(_ name: String) throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let file = ["decorator": "DecoratorExample.swift", "retry": "RetryFunctionExample.swift", "withRetry": "WithRetryExample.swift"][name]!
        let source = try String(contentsOf: here.appendingPathComponent(file), encoding: .utf8)
        let docs = try String(contentsOf: root.appendingPathComponent("docs/executor.md"), encoding: .utf8)
        func between(_ text: String, _ begin: String, _ end: String) -> String? {
            guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
            else { return nil }
            return String(text[start.upperBound..<stop.lowerBound])
        }
        let compiled = try #require(between(source, "// docs/executor.md begin: \(name)\n", "// docs/executor.md end: \(name)"))
        let shown = try #require(between(docs, "<!-- example: \(name) -->\n```swift\n", "```"))
        #expect(shown == compiled)
    }
}
