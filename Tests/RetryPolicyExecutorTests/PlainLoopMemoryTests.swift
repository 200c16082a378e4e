import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import Testing

/// The plain driver keeps a request's state in one block it allocates and
/// frees itself (`PlainLoop`): the last result, the retries it made (with
/// what each threw) and its wait's deadline. These tests hand it values
/// that count their live instances, and require every one of them gone
/// once the request is over, on each way a plain loop ends: a success, a
/// hand-over to the machine when its slots are full, a stop, a wait that
/// throws.
@Suite("Executor: the plain loop frees what it keeps")
struct PlainLoopMemoryTests {
    /// Counts the live tokens it made.
    final class Tokens: Sendable {
        private let live = LockedValue(0)
        var count: Int { live.withLock { $0 } }
        func make() -> Token { Token(self) }
        fileprivate func add(_ delta: Int) { live.withLock { $0 += delta } }
    }

    final class Token: Sendable {
        let tokens: Tokens
        init(_ tokens: Tokens) {
            self.tokens = tokens
            tokens.add(1)
        }
        deinit { tokens.add(-1) }
    }

    struct Failed: Error {
        let token: Token
    }

    struct Answer {
        let status: Int
        let token: Token
    }

    /// A clock whose instants each hold a token, and whose sleeps end at
    /// once (or throw, when `sleepsThrow`): the deadline the plain loop
    /// keeps in its block must be destroyed exactly once.
    final class TokenClock: Clock, Sendable {
        struct Instant: InstantProtocol {
            var offset: Duration
            var token: Token
            func advanced(by duration: Duration) -> Instant {
                Instant(offset: offset + duration, token: token.tokens.make())
            }
            func duration(to other: Instant) -> Duration { other.offset - offset }
            static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
            static func == (lhs: Instant, rhs: Instant) -> Bool { lhs.offset == rhs.offset }
            func hash(into hasher: inout Hasher) { hasher.combine(offset) }
        }

        let tokens: Tokens
        let sleepsThrow: Bool
        private let time = LockedValue(Duration.zero)
        private let sleeps = LockedValue([Duration]())

        init(_ tokens: Tokens, sleepsThrow: Bool = false) {
            self.tokens = tokens
            self.sleepsThrow = sleepsThrow
        }

        var now: Instant { Instant(offset: time.withLock { $0 }, token: tokens.make()) }
        var minimumResolution: Duration { .nanoseconds(1) }
        /// How long each sleep was asked to last, from the time it began.
        var waits: [Duration] { sleeps.withLock { $0 } }

        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            if sleepsThrow { throw CancellationError() }
            let start = time.withLock { now in
                let start = now
                now = max(now, deadline.offset)
                return start
            }
            sleeps.withLock { $0.append(deadline.offset - start) }
        }
    }

    /// Retries every failure by the backoff alone (1 s doubling): a plain
    /// policy, with nothing that needs time.
    static func policy(attempts: Int) -> Policy {
        Policy(
            name: "plain", attempts: attempts,
            backoff: Backoff(initial: .seconds(1), max: .seconds(60), multiplier: 2, jitter: .none),
            retryAfter: RetryAfterPolicy(honor: false, headers: []),
            idempotency: Idempotency(retryableMethods: Set(HTTPMethod.standard)),
            defaultRule: DefaultRule(error: .internalError, action: .retry))
    }

    static func executor(_ clock: TokenClock, attempts: Int) -> RetryExecutor<TokenClock> {
        RetryExecutor(decider: RetryDecider(policy: policy(attempts: attempts)), clock: clock, tracing: nil)
    }

    /// How a request whose every attempt throws ends.
    static func failure(of executor: RetryExecutor<TokenClock>, tokens: Tokens) async throws -> RetryFailure {
        var caught: RetryFailure?
        do {
            _ = try await executor.run { _ throws(Failed) -> Int in throw Failed(token: tokens.make()) }
        } catch {
            caught = error
        }
        return try #require(caught)
    }

    @Test("thrown errors kept for retries and the waits' deadlines are freed when the request succeeds")
    func successAfterThrownFailures() async throws {
        let tokens = Tokens()
        let clock = TokenClock(tokens)
        do {
            let executor = Self.executor(clock, attempts: 4)
            var calls = 0
            let value = try await executor.run { _ throws(Failed) -> Int in
                calls += 1
                if calls < 4 { throw Failed(token: tokens.make()) }
                return calls
            }
            #expect(value == 4)
            #expect(clock.waits == [.seconds(1), .seconds(2), .seconds(4)])
        }
        #expect(tokens.count == 0)
    }

    @Test("returned answers judged failures, kept and then handed to the machine when the slots are full, are freed")
    func handOverWhenFull() async throws {
        let tokens = Tokens()
        let clock = TokenClock(tokens)
        do {
            let executor = Self.executor(clock, attempts: 8)
            var calls = 0
            // Six failures: four retries fill the loop's slots, the fifth
            // goes through the machine, which replays the four.
            let answer = try await executor.run(
                classify: { (result: Result<Answer, Failed>) in
                    if case .success(let answer) = result, answer.status != 200 { return .status(answer.status) }
                    return nil
                }
            ) { _ throws(Failed) -> Answer in
                calls += 1
                return Answer(status: calls < 7 ? 503 : 200, token: tokens.make())
            }
            #expect(answer.status == 200)
            #expect(calls == 7)
            #expect(clock.waits == [1, 2, 4, 8, 16, 32].map { Duration.seconds($0) })
        }
        #expect(tokens.count == 0)
    }

    @Test("a request that runs out of attempts ends with its failure, and nothing else is left")
    func stopAfterRetries() async throws {
        let tokens = Tokens()
        let clock = TokenClock(tokens)
        do {
            let failure = try await Self.failure(of: Self.executor(clock, attempts: 3), tokens: tokens)
            #expect(failure.attempts.count == 3)
            #expect(failure.underlyingError is Failed)
        }
        #expect(tokens.count == 0)
    }

    @Test("a wait that throws hands the request over as cancelled, and nothing is left")
    func waitThrows() async throws {
        let tokens = Tokens()
        let clock = TokenClock(tokens, sleepsThrow: true)
        do {
            let failure = try await Self.failure(of: Self.executor(clock, attempts: 3), tokens: tokens)
            #expect(failure.reason == .cancelled)
            #expect(failure.attempts.count == 1)
        }
        #expect(tokens.count == 0)
    }
}
