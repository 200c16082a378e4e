import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

/// Seed 004, "Error Taxonomy Mapping": one test per row, for both platforms.
@Suite struct ErrorTaxonomyMappingTests {
    static let platforms = ["ios", "android"]

    @Test(arguments: platforms)
    func status200IsSuccess(platform: String) {
        #expect(decide(TestPolicies.mobileSDK(platform: platform), .status(200)).action == .success)
    }

    @Test(arguments: platforms)
    func status204IsNoFillWithoutRetry(platform: String) {
        let decision = decide(TestPolicies.mobileSDK(platform: platform), .status(204))
        #expect(decision.error?.kind == .noFill)
        #expect(decision.stopReason == .notRetryable)
    }

    @Test(arguments: platforms, [400, 401])
    func status400And401AreNetworkErrors(platform: String, status: Int) {
        let decision = decide(TestPolicies.mobileSDK(platform: platform), .status(status))
        #expect(decision.error == SDKError(kind: .networkError, statusCode: status))
        #expect(decision.stopReason == .notRetryable)
    }

    @Test(arguments: platforms)
    func status429IsRateLimitWithoutRetryButRespectsRetryAfter(platform: String) {
        let decider = RetryDecider(policy: TestPolicies.mobileSDK(platform: platform))
        let now = Timestamp(secondsSince1970: 1_700_000_000)
        let decision = decider.decide(DecisionInput(outcome: .status(429, retryAfter: "30"), now: now))
        #expect(decision.error?.kind == .status429)
        #expect(decision.error?.retryAfter == .seconds(30))
        #expect(decision.stopReason == .notRetryable)
        // "respect Retry-After": the next request is not sent before it ends.
        #expect(decider.admit(now: now + .seconds(10)) == .reject(SDKError(kind: .status429, statusCode: 429, retryAfter: .seconds(20)), .cooldown))
        #expect(decider.admit(now: now + .seconds(30)) == .proceed(ticket: nil))
    }

    @Test(arguments: platforms, Array(500...599))
    func every5xxIsStatus5xxWithoutRetry(platform: String, status: Int) {
        let decision = decide(TestPolicies.mobileSDK(platform: platform), .status(status))
        #expect(decision.error == SDKError(kind: .status5xx, statusCode: status))
        #expect(decision.stopReason == .notRetryable)
    }

    @Test(arguments: platforms)
    func timeoutIsTimeoutWithoutRetry(platform: String) {
        let decision = decide(TestPolicies.mobileSDK(platform: platform), .transport(.timeout))
        #expect(decision.error == SDKError(kind: .timeout, transport: .timeout))
        #expect(decision.stopReason == .notRetryable)
    }

    @Test(arguments: platforms, [TransportFailure.dns, .tls, .offline, .connectionRefused])
    func connectivityFailuresAreNetworkErrors(platform: String, failure: TransportFailure) {
        let decision = decide(TestPolicies.mobileSDK(platform: platform), .transport(failure))
        #expect(decision.error == SDKError(kind: .networkError, transport: failure))
        #expect(decision.stopReason == .notRetryable)
    }

    /// Seed 004, "Comparison with Android SDK": per-platform names.
    @Test func platformNamesMatchTheComparisonTable() {
        let ios = TestPolicies.mobileSDK(platform: "ios")
        #expect(ios.platformName(of: .status429, on: "ios") == "SDKError.status_429")
        #expect(ios.platformName(of: .status429, on: "android") == "MediationError.STATUS_429")
        #expect(ios.platformName(of: .status5xx, on: "ios") == "SDKError.status_5xx")
        #expect(ios.platformName(of: .status5xx, on: "android") == "MediationError.STATUS_5XX")
        #expect(ios.platformName(of: .noFill, on: "ios") == "SDKError.noFill")
        #expect(ios.platformName(of: .noFill, on: "android") == "MediationError.NO_FILL")
    }

    @Test func policyNamesOverrideStandardNames() {
        var policy = TestPolicies.mobileSDK()
        policy.errorNames = PlatformNames(["android": [.status429: "AdError.RATE_LIMITED"]])
        #expect(policy.platformName(of: .status429, on: "android") == "AdError.RATE_LIMITED")
        #expect(policy.platformName(of: .noFill, on: "android") == "MediationError.NO_FILL")
    }

    /// Seed 004, "Parity Status": iOS and Android decide identically for
    /// every status and transport failure.
    @Test func iosAndAndroidAreAtParity() {
        let ios = RetryDecider(policy: TestPolicies.mobileSDK(platform: "ios", cooldown: .off))
        let android = RetryDecider(policy: TestPolicies.mobileSDK(platform: "android", cooldown: .off))
        var outcomes = StatusPattern.validCodes.map { AttemptOutcome.status($0) }
        outcomes += TransportFailure.allCases.map { .transport($0) }
        for outcome in outcomes {
            #expect(ios.decide(DecisionInput(outcome: outcome)).action == android.decide(DecisionInput(outcome: outcome)).action)
        }
    }

    /// Seed 004 §4: a timeout budget per placement, 10 s by default.
    @Test func timeoutBudgetIsPerPlacement() {
        let policy = TestPolicies.mobileSDK()
        #expect(policy.timeouts(for: nil).perAttempt == .seconds(10))
        #expect(policy.timeouts(for: "interstitial").perAttempt == .seconds(10))
        #expect(policy.timeouts(for: "main_banner").perAttempt == .seconds(5))
    }
}
