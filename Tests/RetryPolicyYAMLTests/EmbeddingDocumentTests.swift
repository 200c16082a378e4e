// docs/embedding.md begin: the code block of docs/embedding.md's "Embedding the decider", compiled here.
import RetryPolicyCore
import RetryPolicyYAML

/// The policy, loaded once and compiled; share the decider between
/// requests: it holds the retry budget and the cooldown.
func makeDecider(policyFile: String) throws(PolicyLoadError) -> RetryDecider {
    RetryDecider(policy: try PolicyLoader().loadPolicy(atPath: policyFile))
}

/// One GET under the policy; returns the number of the attempt that
/// succeeded, or throws the policy's error. `send(number, timeLimit)`
/// performs one attempt (no limit when `timeLimit` is nil) and reports
/// `.response(status:headers:)` or `.transport(.timeout)`, ...; `clock`
/// times the request and sleeps; `wallClock` is the time of day, for
/// HTTP-date Retry-After values and cooldowns.
func fetch<C: Clock<Duration>>(
    decider: RetryDecider, clock: C, wallClock: () -> Timestamp,
    send: (_ number: Int, _ timeLimit: Duration?) async -> AttemptOutcome,
    refreshCredentials: () async throws -> Void
) async throws(RetryFailure) -> Int {
    let start = clock.now
    func now() -> RequestTime { RequestTime(elapsed: start.duration(to: clock.now), wall: wallClock()) }
    var machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get))
    var generator = SystemRandomNumberGenerator()
    var attempt = 0
    var action = machine.start(at: now())
    while true {
        switch action {
        case .startAttempt(let number, let timeLimit):
            attempt = number
            let outcome = await send(number, timeLimit)
            action = machine.attemptFinished(outcome, at: now(), using: &generator)
        case .wait(let delay, reason: _):       // backoff, Retry-After, or a cooldown before an attempt
            do { try await clock.sleep(for: delay) } catch { throw machine.cancelled(at: now()) }
            action = machine.waitFinished(at: now())
        case .refreshCredentials:               // a 401 rule with refresh_credentials
            do {
                try await refreshCredentials()
                action = machine.credentialRefreshFinished(at: now())
            } catch {
                action = machine.credentialRefreshFinished(at: now(), failure: error)
            }
        case .payBudget(let payment):           // a budget shared through a database: never blocks
            action = machine.budgetPaid(await payment.settle(), at: now())
        case .claimProbe(let claim):            // a breaker shared through a database: its probe's permit
            action = machine.probeClaimed(await claim.settle(), at: now())
        case .succeed:
            return attempt
        case .fail(let failure):
            throw failure                       // failure.kind: status_5xx, ...; failure.reason: attempts_exhausted, ...
        case .hedge:                            // only for a machine made with concurrentAttempts: true
            preconditionFailure("hedging needs a driver that runs attempts concurrently")
        }
    }
}
// docs/embedding.md end

import Foundation
import RetryPolicyTestSupport
import Testing

@Suite struct EmbeddingDocumentTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let tmdb = repository.appendingPathComponent("policies/tmdb.yaml").path
    static let wall = Timestamp(secondsSince1970: 1_795_435_200)

    @Test func documentShowsExactlyTheCompiledCode() throws {
        let document = try String(contentsOf: Self.repository.appendingPathComponent("docs/embedding.md"), encoding: .utf8)
        let section = try #require(document.range(of: "## Embedding the decider"))
        let rest = document[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```\n"))
        let shown = String(rest[open.upperBound..<close.lowerBound])

        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let begin = try #require(lines.firstIndex { $0.hasPrefix("// docs/embedding.md begin") })
        let end = try #require(lines.firstIndex { $0 == "// docs/embedding.md end" })
        let compiled = lines[(begin + 1)..<end].joined(separator: "\n") + "\n"
        #expect(shown == compiled)
    }

    @Test func retriesServerErrorsWithBackoffThenSucceeds() async throws {
        let decider = try makeDecider(policyFile: Self.tmdb)
        let clock = SkippingClock()
        let attempt = try await fetch(
            decider: decider, clock: clock, wallClock: { Self.wall },
            send: { number, _ in number < 3 ? .status(503) : .status(200) },
            refreshCredentials: {})
        #expect(attempt == 3)
        // tmdb.yaml: full jitter from 1 s doubling, so the waits are drawn
        // from [0, 1 s] and [0, 2 s].
        let slept = clock.slept.withLock { $0 }
        #expect(slept.count == 2)
        #expect(slept.count == 2 && slept[0] <= .seconds(1) && slept[1] <= .seconds(2))
    }

    @Test func honoursRetryAfterThroughTheWaitAction() async throws {
        let decider = try makeDecider(policyFile: Self.tmdb)
        let clock = SkippingClock()
        let attempt = try await fetch(
            decider: decider, clock: clock, wallClock: { Self.wall },
            send: { number, _ in
                number == 1 ? .response(status: 429, headers: ["Retry-After": "7"]) : .status(200)
            },
            refreshCredentials: {})
        #expect(attempt == 2)
        #expect(clock.slept.withLock { $0 } == [.seconds(7)])
    }

    @Test func throwsThePolicysErrorWhenAttemptsRunOut() async throws {
        let decider = try makeDecider(policyFile: Self.tmdb)
        let clock = SkippingClock()
        let error = await #expect(throws: RetryFailure.self) {
            _ = try await fetch(
                decider: decider, clock: clock, wallClock: { Self.wall },
                send: { _, _ in .status(503) }, refreshCredentials: {})
        }
        #expect(error?.kind == .status5xx)
        #expect(error?.reason == .attemptsExhausted)
        #expect(error?.attempts.count == 4)
    }

    @Test func cancellationDuringAWaitEndsTheRequestAsCancelled() async throws {
        let decider = try makeDecider(policyFile: Self.tmdb)
        let clock = SkippingClock()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await fetch(
                decider: decider, clock: clock, wallClock: { Self.wall },
                send: { _, _ in .status(503) }, refreshCredentials: {})
        }
        let result = await task.result
        guard case .failure(let error) = result, let failure = error as? RetryFailure else {
            Issue.record("expected a RetryFailure, got \(result)")
            return
        }
        #expect(failure.reason == .cancelled)
        #expect(failure.attempts.count == 1)
    }
}
