import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Loads a shipped policy from policies/.
func shippedPolicy(_ name: String) throws -> Policy {
    try PolicyLoader().loadPolicy(atPath: RepositoryFiles.path("policies/" + name))
}

/// Decides one input on a fresh decider (fresh budget and cooldown).
func decision(
    _ policy: Policy, _ outcome: AttemptOutcome, attempt: Int = 1, method: HTTPMethod = .get,
    markedIdempotent: Bool = false, now: Timestamp? = nil, seed: UInt64 = 1
) -> Decision {
    var generator = SplitMix64(seed: seed)
    let input = DecisionInput(outcome: outcome, attempt: attempt, method: method, markedIdempotent: markedIdempotent, now: now)
    return RetryDecider(policy: policy).decide(input, using: &generator)
}

let allTransports = TransportFailure.allCases

/// Seed 000 (TMDb PRD): "retries failed requests with exponential backoff
/// for retryable errors (429 and 5xx)", maxRetries 3, initialDelay 1 s,
/// maxDelay 30 s, full jitter, Retry-After preferred, network errors not
/// retried.
@Suite struct TMDbPolicyTests {
    let policy: Policy

    init() throws { policy = try shippedPolicy("tmdb.yaml") }

    @Test(arguments: [429, 500, 502, 503, 504, 599])
    func retriesRateLimitAndServerErrorsThreeTimesThenStops(_ status: Int) {
        for attempt in 1...3 {
            #expect(decision(policy, .status(status), attempt: attempt).isRetry, "attempt \(attempt) of \(status)")
        }
        let last = decision(policy, .status(status), attempt: 4)
        #expect(last.stopReason == .attemptsExhausted)
        #expect(last.error?.kind == (status == 429 ? .status429 : .status5xx))
        #expect(last.error?.statusCode == status)
    }

    /// `min(initialDelay * 2^(attempt-1), maxDelay)` with full jitter:
    /// retry k waits uniform in [0, min(1 s * 2^(k-1), 30 s)].
    @Test func backoffIsFullJitterUpToOneSecondTimesTwoToTheKMinusOneCappedAtThirty() {
        for k in 1...3 {
            let expectedUpper = Duration.seconds(min(1 << (k - 1), 30))
            for seed in 1...50 as ClosedRange<UInt64> {
                let decided = decision(policy, .status(503), attempt: k, seed: seed)
                #expect(decided.delayBounds == .zero...expectedUpper)
                let delay = decided.delay ?? .seconds(-1)
                #expect(delay >= .zero && delay <= expectedUpper)
            }
        }
        // Beyond the attempts the policy allows, the cap still holds.
        #expect(policy.backoff.bounds(forRetry: 5, previousDelay: nil) == .zero...Duration.seconds(16))
        #expect(policy.backoff.bounds(forRetry: 6, previousDelay: nil) == .zero...Duration.seconds(30))
        #expect(policy.backoff.bounds(forRetry: 60, previousDelay: nil) == .zero...Duration.seconds(30))
    }

    @Test func retryAfterDeltaSecondsIsUsedExactly() {
        let decided = decision(policy, .response(status: 429, headers: ["Retry-After": "2"]))
        #expect(decided.delay == .seconds(2))
        #expect(decided.serverDirected)
        #expect(decided.delayBounds == Duration.seconds(2)...Duration.seconds(2))
        let onServerError = decision(policy, .response(status: 503, headers: ["Retry-After": "7"]), attempt: 2)
        #expect(onServerError.delay == .seconds(7))
    }

    /// The cap this policy chose (60 s, documented in the file): a longer
    /// server delay stops and hands the delay to the caller.
    @Test func aServerDelayAboveSixtySecondsStopsWithTheDelay() {
        let decided = decision(policy, .response(status: 429, headers: ["Retry-After": "120"]))
        #expect(decided.stopReason == .retryAfterTooLong)
        #expect(decided.error?.kind == .status429)
        #expect(decided.error?.retryAfter == .seconds(120))
        #expect(decision(policy, .response(status: 429, headers: ["Retry-After": "60"])).delay == .seconds(60))
    }

    /// "Network-level errors (timeouts, connection resets) are NOT retried
    /// — they propagate immediately."
    @Test(arguments: allTransports)
    func transportFailuresAreNeverRetried(_ failure: TransportFailure) {
        let decided = decision(policy, .transport(failure))
        #expect(!decided.isRetry)
        #expect(decided.stopReason == (failure == .cancelled ? .cancelled : .notRetryable))
    }

    /// "Non-retryable errors are thrown immediately without retry."
    @Test(arguments: [400, 401, 403, 404, 409, 422, 501])
    func otherErrorsStopAtOnce(_ status: Int) {
        let decided = decision(policy, .status(status))
        #expect(decided.stopReason == .notRetryable)
    }

    @Test func successesAreSuccesses() {
        #expect(decision(policy, .status(200)).action == .success)
        #expect(decision(policy, .status(204)).action == .success)
    }
}

/// Seed 001 (app networking retry utility): retry timeouts, lost and no
/// connection, 5xx; never 4xx, auth, cancelled, invalid URL, decoding;
/// `maxAttempts: 3` retries with 0.5 s, 1 s, 2 s delays capped at 5 s; no
/// retry for a non-idempotent POST.
@Suite struct MobileClientPolicyTests {
    let policy: Policy

    init() throws { policy = try shippedPolicy("mobile-client.yaml") }

    static let retriable: [AttemptOutcome] = [
        .transport(.timeout), .transport(.connectionLost), .transport(.offline), .status(500), .status(502), .status(503), .status(599),
    ]

    @Test(arguments: retriable)
    func retriesTransientFailuresThreeTimes(_ outcome: AttemptOutcome) {
        for attempt in 1...3 { #expect(decision(policy, outcome, attempt: attempt).isRetry) }
        #expect(decision(policy, outcome, attempt: 4).stopReason == .attemptsExhausted)
    }

    @Test(arguments: [
        AttemptOutcome.status(400), .status(401), .status(403), .status(404), .status(429), .status(499),
        .transport(.cancelled), .transport(.invalidURL), .transport(.decoding),
    ])
    func neverRetriesClientErrorsCancellationInvalidURLsOrDecoding(_ outcome: AttemptOutcome) {
        let decided = decision(policy, outcome)
        #expect(!decided.isRetry)
        #expect(decided.stopReason == (outcome == .transport(.cancelled) ? .cancelled : .notRetryable))
    }

    @Test func authenticationAndAuthorizationErrorsReportUnauthorized() {
        #expect(decision(policy, .status(401)).error?.kind == .unauthorized)
        #expect(decision(policy, .status(403)).error?.kind == .unauthorized)
    }

    /// "Attempt 1: 0.5s delay, Attempt 2: 1.0s delay, Attempt 3: 2.0s
    /// delay", capped at maxDelay 5 s. Equal jitter keeps each delay within
    /// [half, all] of the seed's value.
    @Test func delaysAreHalfASecondOneAndTwoSecondsAtMost() {
        let seedDelays: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2)]
        for (index, seedDelay) in seedDelays.enumerated() {
            for seed in 1...50 as ClosedRange<UInt64> {
                let decided = decision(policy, .transport(.timeout), attempt: index + 1, seed: seed)
                #expect(decided.delayBounds == (seedDelay / 2)...seedDelay)
                let delay = decided.delay ?? .zero
                #expect(delay >= seedDelay / 2 && delay <= seedDelay)
            }
        }
        #expect(policy.backoff.bounds(forRetry: 4, previousDelay: nil).upperBound == .seconds(4))
        #expect(policy.backoff.bounds(forRetry: 5, previousDelay: nil).upperBound == .seconds(5))
    }

    /// "Non-idempotent operations (POST creating resources), payment
    /// processing": never retried.
    @Test(arguments: [HTTPMethod.post, .patch])
    func nonIdempotentRequestsAreNotRetried(_ method: HTTPMethod) {
        for outcome in Self.retriable {
            #expect(decision(policy, outcome, method: method).stopReason == .notIdempotent)
        }
        #expect(decision(policy, .status(503), method: method, markedIdempotent: true).isRetry)
    }

    @Test(arguments: [HTTPMethod.get, .head, .put, .delete, .options])
    func idempotentMethodsAreRetried(_ method: HTTPMethod) {
        #expect(decision(policy, .transport(.connectionLost), method: method).isRetry)
    }
}

/// Seed 004 (mobile SDK single-attempt policy), for iOS and Android.
@Suite struct SDKPolicyTests {
    let ios: Policy
    let android: Policy

    init() throws {
        ios = try shippedPolicy("ios-sdk.yaml")
        android = try shippedPolicy("android-sdk.yaml")
    }

    /// The "Error Taxonomy Mapping" table, row by row.
    static let table: [(AttemptOutcome, SDKError.Kind)] = [
        (.status(204), .noFill),
        (.status(400), .networkError),
        (.status(401), .networkError),
        (.status(429), .status429),
        (.status(500), .status5xx), (.status(503), .status5xx), (.status(599), .status5xx),
        (.transport(.timeout), .timeout),
        (.transport(.dns), .networkError), (.transport(.tls), .networkError),
        (.transport(.offline), .networkError), (.transport(.connectionRefused), .networkError),
        (.transport(.connectionLost), .networkError),
        // "default: throw SDKError.networkError(underlying: "HTTP \(code)")"
        (.status(404), .networkError), (.status(403), .networkError), (.status(302), .networkError),
    ]

    @Test func theTableMapsEveryRowAndNothingIsRetried() {
        for policy in [ios, android] {
            #expect(policy.attempts == 1)
            for (outcome, kind) in Self.table {
                let decided = decision(policy, outcome)
                #expect(decided.error?.kind == kind, "\(policy.name): \(outcome)")
                #expect(decided.stopReason == .notRetryable, "\(policy.name): \(outcome)")
            }
            #expect(decision(policy, .status(200)).action == .success)
        }
    }

    @Test func platformNamesFollowEachSDK() {
        let expected: [(SDKError.Kind, String, String)] = [
            (.status429, "SDKError.status_429", "MediationError.STATUS_429"),
            (.status5xx, "SDKError.status_5xx", "MediationError.STATUS_5XX"),
            (.noFill, "SDKError.noFill", "MediationError.NO_FILL"),
            (.networkError, "SDKError.networkError", "MediationError.NETWORK_ERROR"),
            (.timeout, "SDKError.timeout", "MediationError.TIMEOUT"),
        ]
        #expect(ios.platform == "ios")
        #expect(android.platform == "android")
        for (kind, iosName, androidName) in expected {
            #expect(ios.platformName(of: kind, on: "ios") == iosName)
            #expect(android.platformName(of: kind, on: "android") == androidName)
        }
    }

    /// "Timeout budget enforced by the SDK (default: 10 seconds)",
    /// "configurable per placement".
    @Test func eachPlacementHasATenSecondBudgetByDefault() {
        for policy in [ios, android] {
            for placement in ["main_banner", "config", "some_other_placement", nil] as [String?] {
                #expect(policy.timeouts(for: placement).perAttempt == .seconds(10))
                #expect(policy.timeouts(for: placement).total == .seconds(10))
            }
        }
    }

    /// "429 Too Many Requests: Rate limit → propagate SDKError.status_429,
    /// respect Retry-After header": no retry, but no request either until
    /// the server's delay (capped at 60 s) has passed.
    @Test func aRateLimitCoolsDownLaterRequestsForTheServersDelay() {
        for policy in [ios, android] {
            let decider = RetryDecider(policy: policy)
            let now = Timestamp(secondsSince1970: 1_700_000_000)
            var generator = SplitMix64(seed: 1)
            let decided = decider.decide(
                DecisionInput(outcome: .response(status: 429, headers: ["Retry-After": "30"]), now: now), using: &generator)
            #expect(decided.error?.kind == .status429)
            #expect(decided.error?.retryAfter == .seconds(30))
            guard case .reject(let error, _) = decider.admit(now: now + .seconds(10)) else {
                Issue.record("\(policy.name) admitted a request during the cooldown")
                continue
            }
            #expect(error.kind == .status429)
            #expect(error.retryAfter == .seconds(20))
            #expect(decider.admit(now: now + .seconds(30)) == .proceed(ticket: nil))
        }
    }

    @Test func aCooldownNeverExceedsTheSixtySecondCap() {
        let decider = RetryDecider(policy: ios)
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        var generator = SplitMix64(seed: 1)
        _ = decider.decide(DecisionInput(outcome: .response(status: 429, headers: ["Retry-After": "86400"]), now: now), using: &generator)
        #expect(decider.admit(now: now + .seconds(59)) != .proceed(ticket: nil))
        #expect(decider.admit(now: now + .seconds(60)) == .proceed(ticket: nil))
    }

    /// Only 429 respects Retry-After; a 503's header starts no cooldown
    /// (the server retries 5xx itself).
    @Test func serverErrorsStartNoCooldown() {
        let decider = RetryDecider(policy: android)
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        var generator = SplitMix64(seed: 1)
        _ = decider.decide(DecisionInput(outcome: .response(status: 503, headers: ["Retry-After": "30"]), now: now), using: &generator)
        #expect(decider.admit(now: now + .seconds(1)) == .proceed(ticket: nil))
    }

    /// "Parity Status: iOS and Android have equivalent retry policies":
    /// the same decision (action, kind, reason, rule) for every status and
    /// transport failure, for every method.
    @Test func iosAndAndroidDecideIdenticallyForEveryInput() {
        #expect(ios.parity == ["android-sdk.yaml"])
        #expect(android.parity == ["ios-sdk.yaml"])
        let outcomes = (100...599).map(AttemptOutcome.status) + allTransports.map(AttemptOutcome.transport)
        var compared = 0
        for outcome in outcomes {
            for method in HTTPMethod.standard {
                let a = decision(ios, outcome, method: method)
                let b = decision(android, outcome, method: method)
                #expect(a.action == b.action, "\(outcome) \(method)")
                #expect(a.ruleIndex == b.ruleIndex, "\(outcome) \(method)")
                compared += 1
            }
        }
        #expect(compared == (500 + allTransports.count) * HTTPMethod.standard.count)
        #expect(ios.retryAfter == android.retryAfter.relocated(to: ios.retryAfter.location))
        #expect(ios.timeouts == android.timeouts)
    }
}

extension RetryAfterPolicy {
    func relocated(to location: RetryPolicyCore.SourceLocation?) -> RetryAfterPolicy {
        var copy = self
        copy.location = location
        return copy
    }
}
