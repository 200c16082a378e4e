import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import Testing

@Suite("Executor: error text made when read")
struct ExecutorErrorTextTests {
    /// An error that counts how often it is turned into text.
    struct Described: Error, CustomStringConvertible {
        let texts: LockedValue<Int>
        var description: String {
            texts.withLock { $0 += 1 }
            return "connection reset by peer"
        }
    }

    static let policy = ExecutorClockReadingTests.timeless()

    @Test("a request that retries and succeeds never turns its errors into text")
    func successMakesNoText() async throws {
        let texts = LockedValue(0)
        let executor = RetryExecutor(decider: RetryDecider(policy: Self.policy), clock: SkippingClock(), tracing: nil)
        var calls = 0
        let value = try await executor.run { _ throws(Described) -> Int in
            calls += 1
            if calls < 3 { throw Described(texts: texts) }
            return calls
        }
        #expect(value == 3)
        #expect(texts.withLock { $0 } == 0)
    }

    @Test("a failure's records and detail show the thrown error's text when read")
    func failureShowsTheText() async throws {
        let texts = LockedValue(0)
        let executor = RetryExecutor(decider: RetryDecider(policy: Self.policy), clock: SkippingClock(), tracing: nil)
        let result = await capture { () async throws(RetryFailure) -> Int in
            try await executor.run { _ throws(Described) -> Int in throw Described(texts: texts) }
        }
        let failure = try #require(result.failure)
        #expect(texts.withLock { $0 } == 0)
        #expect(failure.attempts.count == 3)
        #expect(failure.attempts.map(\.errorDescription) == Array(repeating: "connection reset by peer", count: 3))
        #expect(failure.error.detail == "connection reset by peer")
        #expect(failure.kind == .internalError)
        #expect(failure.underlyingError is Described)
        #expect(failure.attempts.first?.thrownError is Described)
    }

    @Test("a record made from an error equals one made from its text")
    func recordEquality() {
        let decision = Decision(action: .stop(SDKError(kind: .internalError), .notRetryable))
        let thrown = AttemptRecord(
            number: 1, outcome: .transport(.unknown), startedAt: .zero, duration: .zero, decision: decision,
            thrown: TransportError(.connectionLost, detail: "reset"))
        let text = AttemptRecord(
            number: 1, outcome: .transport(.unknown), startedAt: .zero, duration: .zero, decision: decision,
            errorDescription: "connection_lost: reset")
        #expect(thrown == text)
        #expect(thrown.hashValue == text.hashValue)
        var other = text
        other.errorDescription = "timed out"
        #expect(other != thrown)
    }

    @Test("changing a failure's error or underlying error keeps what a reader saw")
    func failureMutation() async throws {
        let executor = RetryExecutor(decider: RetryDecider(policy: Self.policy), clock: SkippingClock(), tracing: nil)
        let result = await capture { () async throws(RetryFailure) -> Int in
            try await executor.run { _ throws(TransportError) -> Int in throw TransportError(.offline, detail: "no route") }
        }
        var failure = try #require(result.failure)
        #expect(failure.error.detail == "offline: no route")
        failure.underlyingError = nil
        #expect(failure.error.detail == "offline: no route")
        failure.error.detail = nil
        #expect(failure.error.detail == nil)
    }
}
