import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct ManualClockTests {
    @Test("sleepers(atLeast:) returns once enough tasks sleep, and advancing wakes them")
    func sleepersArrive() async throws {
        let clock = ManualClock()
        let start = clock.now
        let sleeper = Task { () throws -> ManualClock.Instant in
            try await clock.sleep(for: .seconds(5))
            return clock.now
        }
        await clock.sleepers(atLeast: 1)
        #expect(clock.sleepersAtNextDeadline == 1)
        // Short of the deadline, it still sleeps.
        clock.advance(by: .seconds(4))
        #expect(clock.sleepersAtNextDeadline == 1)
        clock.advance(by: .seconds(1))
        #expect(try await sleeper.value == start.advanced(by: .seconds(5)))
        #expect(clock.sleepersAtNextDeadline == 0)
    }

    @Test("a cancelled wait for sleepers returns instead of hanging")
    func cancelledWaitReturns() async {
        let clock = ManualClock()
        let waiter = Task { await clock.sleepers(atLeast: 1) }
        waiter.cancel()
        await waiter.value
        #expect(waiter.isCancelled)
        #expect(clock.sleepersAtNextDeadline == 0)
        // Cancelled before it starts waiting, too.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await clock.sleepers(atLeast: 3)
        }
        await early.value
    }

    @Test("sleepersAtNextDeadline counts the sleepers that the next advance wakes together")
    func sleepersDueTogether() async throws {
        let clock = ManualClock()
        #expect(clock.sleepersAtNextDeadline == 0)
        let early = Task { try await clock.sleep(for: .seconds(1)) }
        let late = Task { try await clock.sleep(for: .seconds(2)) }
        await clock.sleepers(atLeast: 2)
        #expect(clock.sleepersAtNextDeadline == 1)
        let alongside = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.sleepers(atLeast: 3)
        #expect(clock.sleepersAtNextDeadline == 2)
        clock.advanceToNextDeadline()
        try await early.value
        try await alongside.value
        #expect(clock.sleepersAtNextDeadline == 1)
        late.cancel()
        _ = await late.result
        #expect(clock.sleepersAtNextDeadline == 0)
    }
}
