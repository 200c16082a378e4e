import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

/// The "Embedding the decider" example of docs/embedding.md, kept compiling and correct.
@Suite struct EmbeddingExampleTests {
    /// A hand-driven request over any transport: the state machine says
    /// what to do, the caller does it.
    func fetch(
        using decider: RetryDecider,
        send: (Int) -> AttemptOutcome,
        sleep: (Duration) -> Void,
        now: () -> Timestamp
    ) -> Result<Int, SDKError> {
        let start = now()
        func time() -> RequestTime { RequestTime(elapsed: now().duration(since: start), wall: now()) }
        var machine = RequestStateMachine(decider: decider, request: RetryRequest(method: .get))
        var generator = SystemRandomNumberGenerator()
        var action = machine.start(at: time())
        var attempts = 0
        while true {
            switch action {
            case .startAttempt(let number, _):
                attempts = number
                let outcome = send(number)
                action = machine.attemptFinished(outcome, at: time(), using: &generator)
            case .wait(let delay, _):
                sleep(delay)
                action = machine.waitFinished(at: time())
            case .refreshCredentials:
                action = machine.credentialRefreshFinished(at: time())
            case .payBudget(let payment):
                action = machine.budgetPaid(payment.settleWithoutWaiting(), at: time())
            case .claimProbe(let claim):
                action = machine.probeClaimed(claim.settleWithoutWaiting(), at: time())
            case .succeed:
                return .success(attempts)
            case .fail(let failure):
                return .failure(failure.error)
            case .hedge:
                // Only for a machine made with `concurrentAttempts: true`.
                preconditionFailure("hedging needs a driver that runs attempts concurrently")
            }
        }
    }

    @Test func exampleRetriesThenSucceeds() throws {
        var clock = Timestamp(secondsSince1970: 1_700_000_000)
        var slept: [Duration] = []
        let decider = RetryDecider(policy: TestPolicies.tmdb())
        let result = fetch(
            using: decider,
            send: { attempt in attempt < 3 ? .status(503, retryAfter: "2") : .status(200) },
            sleep: { delay in slept.append(delay); clock = clock + delay },
            now: { clock })
        #expect(try result.get() == 3)
        #expect(slept == [.seconds(2), .seconds(2)])
    }

    @Test func exampleStopsWithTheRulesError() {
        var clock = Timestamp(secondsSince1970: 1_700_000_000)
        let decider = RetryDecider(policy: TestPolicies.tmdb())
        let result = fetch(
            using: decider, send: { _ in .status(503) }, sleep: { clock = clock + $0 }, now: { clock })
        #expect(throws: SDKError(kind: .status5xx, statusCode: 503)) { try result.get() }
    }
}
