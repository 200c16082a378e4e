import PropertyBased
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTestSupport
import Testing

/// The executor's two sequential drivers: a request that nothing observes,
/// under a policy whose backoff alone decides its retries, retries in the
/// plain driver and is handed to the machine's driver for anything else;
/// an observed request runs in the machine's driver throughout. Both must
/// come to the same end: the same attempts, waits, value or failure, and
/// history.
@Suite("Executor: the plain driver agrees with the machine's")
struct ExecutorPlainRunTests {
    /// A transport failure or a gRPC status thrown by the operation, in
    /// its own type.
    struct TransportError: Error, Hashable {
        var outcome: AttemptOutcome
    }

    /// One attempt's answer.
    enum Answer: Hashable {
        case status(Int, retryAfterSeconds: Int?)
        case thrown(TransportFailure)
        /// A gRPC status, with a `grpc-retry-pushback-ms` value or none.
        case grpc(GRPCStatusCode, pushback: String?)
    }

    /// What a request came to, without the times (the machine's driver
    /// times an observed request; the plain driver's are untimed).
    struct Ending: Equatable {
        var status: Int?
        var reason: StopReason?
        var error: SDKError?
        var history: [Seen] = []
        var sleeps: [Duration]
        var calls: Int
        var attemptNumbers: [Int]

        struct Seen: Equatable {
            var number: Int
            var outcome: AttemptOutcome
            var decision: Decision
            var errorDescription: String?
        }
    }

    static let plainPolicies: PolicyGenerator = {
        var generator = PolicyGenerator()
        generator.rules = .random
        generator.budget = .none
        generator.breaker = .none
        generator.hedging = .never
        generator.perAttemptTimeout = .oneOf([nil])
        generator.totalTimeout = .oneOf([nil])
        generator.cooldowns = [.off]
        generator.attempts = 1...7
        return generator
    }()

    static let answers = Gen.oneOf(
        Gen.int(in: 0...11).map { index -> Answer in
            let statuses = [200, 204, 400, 404, 408, 429, 500, 502, 503, 504, 503, 429]
            return .status(statuses[index], retryAfterSeconds: nil)
        },
        Gen.int(in: 0...3).map { seconds -> Answer in .status(503, retryAfterSeconds: seconds == 0 ? nil : seconds * 7) },
        Gen.int(in: 0...2).map { index -> Answer in
            .thrown([TransportFailure.connectionLost, .timeout, .offline][index])
        },
        Gen.int(in: 0...11).map { index -> Answer in
            let codes: [GRPCStatusCode] = [.unavailable, .resourceExhausted, .invalidArgument, .ok]
            let pushbacks: [String?] = [nil, "1500", "-1"]
            return .grpc(codes[index % 4], pushback: pushbacks[index / 4])
        }
    )

    /// Sends one request under `policy` through an executor that is
    /// observed (the machine's driver) or not (the plain driver).
    static func send(
        _ policy: Policy, answers: [Answer], seed: UInt64, method: HTTPMethod, observed: Bool,
        overrideAt overrideAttempt: Int?, cancelAt cancelAttempt: Int? = nil
    ) async -> Ending {
        let clock = SkippingClock()
        let timestamp = Timestamp(secondsSince1970: 1_700_000_000)
        let executor =
            observed
            ? RetryExecutor(
                decider: RetryDecider(policy: policy), clock: clock, wallClockNow: timestamp, observer: { _ in },
                tracing: nil)
            : RetryExecutor(decider: RetryDecider(policy: policy), clock: clock, wallClockNow: timestamp, tracing: nil)
        var calls = 0
        var numbers: [Int] = []
        var generator = SplitMix64(seed: seed)
        let ending: Ending
        do {
            let response = try await executor.run(
                RetryRequest(method: method), using: &generator,
                classify: { (result: Result<FakeResponse, TransportError>) in
                    if case .failure(let error) = result { return error.outcome }
                    return nil
                },
                override: { attempt in
                    attempt.number == overrideAttempt ? .retry(after: .milliseconds(3)) : .asPolicySays
                }
            ) { (context: AttemptContext) async throws(TransportError) -> FakeResponse in
                calls += 1
                numbers.append(context.attempt)
                if calls == cancelAttempt { withUnsafeCurrentTask { $0?.cancel() } }
                let answer = calls <= answers.count ? answers[calls - 1] : .status(200, retryAfterSeconds: nil)
                switch answer {
                case .status(let status, let seconds):
                    var response = FakeResponse(statusCode: status)
                    if let seconds { response.headers["Retry-After"] = String(seconds) }
                    return response
                case .thrown(let failure):
                    throw TransportError(outcome: .transport(failure))
                case .grpc(let code, let pushback):
                    let metadata: ResponseHeaders = pushback.map { ["grpc-retry-pushback-ms": $0] } ?? .none
                    throw TransportError(outcome: .grpc(status: code, metadata: metadata))
                }
            }
            ending = Ending(status: response.statusCode, sleeps: clock.sleeps, calls: calls, attemptNumbers: numbers)
        } catch {
            ending = Ending(
                reason: error.reason, error: error.error,
                history: error.attempts.map {
                    Ending.Seen(
                        number: $0.number, outcome: $0.outcome, decision: $0.decision,
                        errorDescription: $0.errorDescription)
                },
                sleeps: clock.sleeps, calls: calls, attemptNumbers: numbers)
        }
        return ending
    }

    @Test("any plain policy and any script of answers, HTTP and gRPC: the same attempts, waits and ending")
    func agreesWithTheMachine() async {
        await propertyCheck(
            count: 300, input: Gen.uint64(), Self.answers.array(of: 0...8), Gen.uint64(), Gen.int(in: 0...5)
        ) { policySeed, answers, seed, extra in
            let policy = Self.plainPolicies.policy(seed: policySeed)
            let method: HTTPMethod = extra % 2 == 0 ? .get : .post
            // An override on one attempt in three requests.
            let overrideAt = extra >= 4 ? extra - 2 : nil
            let plain = await Self.send(
                policy, answers: answers, seed: seed, method: method, observed: false, overrideAt: overrideAt)
            let machine = await Self.send(
                policy, answers: answers, seed: seed, method: method, observed: true, overrideAt: overrideAt)
            #expect(plain == machine, "policy seed \(policySeed), answers \(answers), seed \(seed)")
        }
    }

    @Test("more retries than the plain driver keeps, then a stop: the machine has the whole history")
    func manyRetriesThenAStop() async {
        var policy = TestPolicies.tmdb()
        policy.attempts = 9
        policy.breaker = nil
        policy.budget = nil
        policy.timeouts = TimeoutBudget()
        let answers = Array(repeating: Answer.status(503, retryAfterSeconds: nil), count: 9)
        let plain = await Self.send(policy, answers: answers, seed: 7, method: .get, observed: false, overrideAt: nil)
        let machine = await Self.send(policy, answers: answers, seed: 7, method: .get, observed: true, overrideAt: nil)
        #expect(plain.calls == 9)
        #expect(plain.history.map(\.number) == Array(1...9))
        #expect(plain.reason == .attemptsExhausted)
        #expect(plain == machine)
    }

    @Test("cancelled during an attempt that failed, or before the wait after a returned answer: as the machine ends it")
    func cancellation() async {
        var policy = TestPolicies.tmdb()
        policy.attempts = 5
        policy.breaker = nil
        policy.budget = nil
        policy.timeouts = TimeoutBudget()
        for (answers, cancelAt) in [
            ([Answer.status(503, retryAfterSeconds: nil), .thrown(.connectionLost), .status(503, retryAfterSeconds: nil)], 2),
            ([Answer.status(503, retryAfterSeconds: nil), .status(503, retryAfterSeconds: nil)], 2),
            ([Answer.status(503, retryAfterSeconds: nil)], 1),
        ] {
            let plain = await Task {
                await Self.send(
                    policy, answers: answers, seed: 3, method: .get, observed: false, overrideAt: nil,
                    cancelAt: cancelAt)
            }.value
            let machine = await Task {
                await Self.send(
                    policy, answers: answers, seed: 3, method: .get, observed: true, overrideAt: nil,
                    cancelAt: cancelAt)
            }.value
            #expect(plain.reason == .cancelled)
            #expect(plain.calls == cancelAt)
            #expect(plain == machine, "answers \(answers)")
        }
    }
}
