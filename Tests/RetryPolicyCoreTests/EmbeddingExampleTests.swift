import RetryPolicyCore
import Testing

/// The README's "embed the decider" example, kept compiling and correct.
@Suite struct EmbeddingExampleTests {
    /// A hand-driven request loop over any transport: the decider says what
    /// to do, the caller does it.
    func fetch(
        using decider: RetryDecider,
        send: (Int) -> AttemptOutcome,
        sleep: (Duration) -> Void,
        now: () -> Timestamp
    ) -> Result<Int, SDKError> {
        let start = now()
        var input = DecisionInput(outcome: .status(0), method: .get, now: start)
        var attempt = 1
        while true {
            switch decider.admit(now: now()) {
            case .proceed: break
            case .wait(let remaining): sleep(remaining)
            case .reject(let error): return .failure(error)
            }
            input.outcome = send(attempt)
            input.elapsed = now().duration(since: start)
            input.now = now()
            let decision = decider.decide(input)
            switch decision.action {
            case .success:
                return .success(attempt)
            case .stop(let error, _):
                return .failure(error)
            case .retry(let delay):
                sleep(delay)
                input.advance(after: decision, outcome: input.outcome, elapsed: now().duration(since: start), now: now())
                attempt += 1
            }
        }
    }

    @Test func exampleRetriesThenSucceeds() throws {
        var clock = Timestamp(secondsSince1970: 1_700_000_000)
        var slept: [Duration] = []
        let decider = RetryDecider(policy: SeedPolicies.tmdb)
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
        let decider = RetryDecider(policy: SeedPolicies.tmdb)
        let result = fetch(
            using: decider, send: { _ in .status(503) }, sleep: { clock = clock + $0 }, now: { clock })
        #expect(throws: SDKError(kind: .status5xx, statusCode: 503)) { try result.get() }
    }
}
