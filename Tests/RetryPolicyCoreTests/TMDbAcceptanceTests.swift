import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

/// Seed 000's acceptance criteria, against the policy built in code.
@Suite struct TMDbAcceptanceTests {
    let policy = TestPolicies.tmdb()

    @Test("Requests are retried up to maxRetries (3) times on retryable errors", arguments: [429, 500, 502, 503, 504, 599])
    func retriedUpToThreeTimes(status: Int) {
        for attempt in 1...3 {
            #expect(decide(policy, .status(status), attempt: attempt).isRetry, "attempt \(attempt)")
        }
        let last = decide(policy, .status(status), attempt: 4)
        #expect(last.stopReason == .attemptsExhausted)
        #expect(last.error?.statusCode == status)
    }

    @Test("Exponential backoff with full jitter: min(1s × 2^(k-1), 30s)")
    func exponentialBackoffWithJitter() throws {
        let expected: [Duration] = [.seconds(1), .seconds(2), .seconds(4)]
        for (index, upper) in expected.enumerated() {
            let decision = decide(policy, .status(503), attempt: index + 1)
            #expect(decision.delayBounds == .zero...upper)
            let delay = try #require(decision.delay)
            #expect(delay >= .zero && delay <= upper)
        }
        // The cap: retry 6 would be 32 s.
        #expect(policy.backoff.base(forRetry: 6) == .seconds(30))
    }

    @Test("Jitter spreads delays across the whole range")
    func jitterIsRandom() {
        let delays = Set((0..<50).compactMap { seed in decide(policy, .status(503), attempt: 3, seed: UInt64(seed)).delay })
        #expect(delays.count > 40)
    }

    @Test("Retry-After header is respected when present (delta-seconds, exactly, no jitter)")
    func retryAfterRespected() {
        let decision = decide(policy, .status(429, retryAfter: "2"))
        #expect(decision.action == .retry(after: .seconds(2)))
        #expect(decision.delayBounds == .seconds(2)...(.seconds(2)))
        #expect(decision.serverDirected)
    }

    @Test("Non-retryable errors are thrown immediately without retry", arguments: [400, 401, 403, 404, 422])
    func nonRetryableStopsAtOnce(status: Int) {
        let decision = decide(policy, .status(status))
        #expect(decision.stopReason == .notRetryable)
        #expect(decision.error?.statusCode == status)
    }

    @Test("Network errors are not retried (seed: they propagate immediately)")
    func networkErrorsNotRetried() {
        for failure in TransportFailure.allCases where failure != .cancelled {
            #expect(decide(policy, .transport(failure)).stopReason == .notRetryable)
        }
    }

    @Test("Cancellation stops the retry loop")
    func cancellationStops() {
        var cancellable = policy
        cancellable.rules.append(Rule(transports: [.cancelled], error: .cancelled, action: .retry))
        let decision = decide(cancellable, .transport(.cancelled))
        #expect(decision.stopReason == .cancelled)
        #expect(decision.error?.kind == .cancelled)
    }

    @Test("Default configuration (no retry) keeps a single attempt")
    func defaultIsSingleAttempt() {
        var noRetry = policy
        noRetry.attempts = Policy(name: "default").attempts
        #expect(decide(noRetry, .status(503)).stopReason == .attemptsExhausted)
    }

    @Test("Success is success")
    func success() {
        #expect(decide(policy, .status(200)).action == .success)
        #expect(decide(policy, .status(201), attempt: 3).action == .success)
    }
}

/// Seed 001's retriable and non-retriable lists and its schedule.
@Suite struct MobileClientTests {
    let policy = TestPolicies.mobileClient

    @Test("Retriable: timeouts, connection lost, no connection",
          arguments: [TransportFailure.timeout, .connectionLost, .offline])
    func retriableTransport(failure: TransportFailure) {
        #expect(decide(policy, .transport(failure)).isRetry)
    }

    @Test("Retriable: 5xx", arguments: Array(500...599))
    func retriableServerErrors(status: Int) {
        #expect(decide(policy, .status(status)).isRetry)
    }

    @Test("Never retried: 4xx, auth, forbidden, not found", arguments: Array(400...499))
    func clientErrorsNeverRetried(status: Int) {
        #expect(decide(policy, .status(status)).stopReason == .notRetryable)
    }

    @Test func authAndNotFoundKinds() {
        #expect(decide(policy, .status(401)).error?.kind == .unauthorized)
        #expect(decide(policy, .status(403)).error?.kind == .unauthorized)
        #expect(decide(policy, .status(404)).error?.kind == .notFound)
    }

    @Test("Never retried: cancelled, invalid URL, decoding",
          arguments: [TransportFailure.cancelled, .invalidURL, .decoding])
    func nonRetriableTransport(failure: TransportFailure) {
        #expect(!decide(policy, .transport(failure)).isRetry)
    }

    @Test("maxAttempts 3 counts retries: delays 0.5 s, 1 s, 2 s, then stop")
    func schedule() {
        let delays = (1...3).map { decide(policy, .transport(.timeout), attempt: $0).delay }
        #expect(delays == [.milliseconds(500), .seconds(1), .seconds(2)])
        #expect(decide(policy, .transport(.timeout), attempt: 4).stopReason == .attemptsExhausted)
    }

    @Test("Delays are capped at 5 s")
    func cap() {
        #expect(policy.backoff.base(forRetry: 5) == .seconds(5))
        #expect(policy.backoff.base(forRetry: 60) == .seconds(5))
    }

    @Test("POST (payments) is not retried")
    func postNotRetried() {
        let decision = decide(policy, .status(503), method: .post)
        #expect(decision.stopReason == .notIdempotent)
        #expect(decision.error?.kind == .status5xx)
    }

    @Test("A request marked idempotent is retried whatever its method")
    func markedIdempotent() {
        let decider = RetryDecider(policy: policy)
        let decision = decider.decide(DecisionInput(outcome: .status(503), method: .post, markedIdempotent: true))
        #expect(decision.isRetry)
    }
}
