import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

/// The executor runs a hedged request's copies at the same time, on a
/// manual clock: a slow first copy is overtaken by a second, and the loser
/// is cancelled.
@Suite("Executor: hedged requests", .timeLimit(.minutes(1)))
struct ExecutorHedgingTests {
    static func policy(attempts: Int = 3, delay: Duration = .milliseconds(100)) -> Policy {
        var policy = Policy(
            name: "hedged", attempts: attempts,
            rules: [Rule(statuses: [.range(500...599)], error: .status5xx, action: .retry)],
            defaultRule: DefaultRule(error: .internalError, action: .stop))
        policy.hedging = HedgingPolicy(delay: delay)
        return policy
    }

    struct Response: RetryableResponse {
        var statusCode: Int
        var attempt: Int
        func headerValue(named name: String) -> String? { nil }
    }

    /// Records which copies started and which were cancelled.
    final class Server: Sendable {
        let clock: ManualClock
        /// Latency and status of each copy, by attempt number.
        let script: [Int: (Duration, Int)]
        let cancelled = LockedValue<Set<Int>>([])
        let started = LockedValue<[Int]>([])

        init(clock: ManualClock, script: [Int: (Duration, Int)]) {
            self.clock = clock
            self.script = script
        }

        @Sendable func attempt(_ context: AttemptContext) async throws -> Response {
            started.withLock { $0.append(context.attempt) }
            let (latency, status) = script[context.attempt] ?? (.milliseconds(1), 200)
            do {
                try await clock.sleep(for: latency)
            } catch {
                cancelled.withLock { _ = $0.insert(context.attempt) }
                throw error
            }
            return Response(statusCode: status, attempt: context.attempt)
        }
    }

    final class Log: Sendable {
        let events = LockedValue<[RetryEvent]>([])
        func append(_ event: RetryEvent) { events.withLock { $0.append(event) } }
    }

    @Test("a slow first copy is overtaken by the second, which wins; the first is cancelled")
    func secondCopyWins() async throws {
        let clock = ManualClock()
        let log = Log()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: Self.policy()), clock: clock, wallClockNow: Timestamp(secondsSince1970: 1_735_689_600),
            observer: { log.append($0) })
        let server = Server(clock: clock, script: [1: (.seconds(10), 200), 2: (.milliseconds(30), 200)])
        let task = Task { try await executor.runConcurrently(RetryRequest(method: .get), operation: server.attempt) }
        await clock.sleepers(atLeast: 2)  // copy 1 and the hedge timer
        clock.advance(by: .milliseconds(100))
        await clock.sleepers(atLeast: 3)  // copies 1 and 2, and the next timer
        clock.advance(by: .milliseconds(30))
        let response = try await task.value
        #expect(response.attempt == 2)
        #expect(server.started.withLock { $0 } == [1, 2])
        #expect(server.cancelled.withLock { $0 } == [1])
        let records = log.events.withLock { $0 }.compactMap { event -> AttemptRecord? in
            if case .attemptFinished(let record) = event { record } else { nil }
        }
        #expect(records.map(\.number) == [1, 2])
        #expect(records.first?.outcome == .transport(.cancelled))
        #expect(records.last?.outcome == .status(200))
        #expect(records.last?.startedAt == .milliseconds(100))
    }

    @Test("cancelling a hedged request while its copies are in flight ends it as cancelled and cancels every copy", arguments: [false, true])
    func cancelledWhileCopiesAreInFlight(beforeTimer: Bool) async throws {
        let clock = ManualClock()
        let log = Log()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: Self.policy()), clock: clock, wallClockNow: Timestamp(secondsSince1970: 1_735_689_600),
            observer: { log.append($0) })
        let server = Server(clock: clock, script: [1: (.seconds(10), 200), 2: (.seconds(10), 200)])
        let task = Task { try await executor.runConcurrently(RetryRequest(method: .get), operation: server.attempt) }
        await clock.sleepers(atLeast: 2)  // copy 1 and the hedge timer
        if !beforeTimer {
            clock.advance(by: .milliseconds(100))
            await clock.sleepers(atLeast: 3)  // copies 1 and 2, and the next timer
        }
        // The executor is waiting for its next event when the cancellation
        // comes.
        task.cancel()
        let result = await task.result
        guard case .failure(let failure as RetryFailure) = result else {
            Issue.record("a cancelled hedged request ended with \(result)")
            return
        }
        #expect(failure.reason == .cancelled)
        let copies = beforeTimer ? [1] : [1, 2]
        #expect(server.started.withLock { $0 } == copies)
        #expect(server.cancelled.withLock { $0 } == Set(copies))
        #expect(clock.sleeperCount == 0, "a copy or the timer outlived the request")
        let failed = log.events.withLock { $0 }.contains { if case .failed = $0 { true } else { false } }
        #expect(failed)
    }
}
