import Foundation
import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// The annotated example in docs/policy-format.md is the format's
/// reference: it must load, and mean what its comments say.
@Suite struct FormatDocumentTests {
    /// The first ```yaml block of the format document, with `extends`
    /// removed (the file it names is an illustration).
    static func example() throws -> String {
        let document = try RepositoryFiles.text("docs/policy-format.md")
        let start = try #require(document.range(of: "```yaml\n"))
        let end = try #require(document.range(of: "```", range: start.upperBound..<document.endIndex))
        return String(document[start.upperBound..<end.lowerBound])
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("extends:") ? "# (extends elided)" : String($0) }
            .joined(separator: "\n")
    }

    @Test func annotatedExampleLoadsWithTheValuesItsCommentsState() throws {
        let policy = try PolicyLoader().loadPolicy(yaml: try Self.example(), path: "policy-format.md")
        #expect(policy.name == "tmdb")
        #expect(policy.attempts == 4)
        #expect(policy.backoff.initial == .seconds(1))
        #expect(policy.backoff.max == .seconds(30))
        #expect(policy.backoff.jitter == .full)
        #expect(policy.retryAfter.cap == .seconds(60))
        #expect(policy.retryAfter.headers.map(\.format) == [.http, .milliseconds, .unixSeconds])
        #expect(policy.retryAfter.cooldown == .off)
        #expect(policy.timeouts(for: "main_banner").perAttempt == .seconds(5))
        #expect(policy.budget == RetryBudgetConfiguration(location: policy.budget?.location))
        #expect(policy.rules.count == 7)
        #expect(policy.conditions == ["malformed_body"])
        #expect(policy.rules[5].conditions == ["malformed_body"])
        #expect(policy.rules[6].grpc == [.unavailable, .resourceExhausted])
        #expect(policy.backoff.min == .zero)
        #expect(policy.rules[2].statuses == [.code(500), .range(502...504)])
        #expect(policy.rules[2].methods == [.get])
        #expect(policy.rules[4].refreshCredentials)
        #expect(policy.idempotency.isExplicit)
        #expect(policy.errorNames.name(of: "status_429", on: "android") == "MediationError.STATUS_429")
        #expect(policy.parity == ["android-sdk.yaml"])
        #expect(policy.rules[0].location == SourceLocation(file: "policy-format.md", line: 57, column: 5))
    }
}

/// The `breaker` example of docs/policy-format.md loads and means what its
/// comments say; the defaults it states are the configuration's defaults.
@Suite struct BreakerFormatDocumentTests {
    @Test func breakerExampleLoadsWithTheValuesItsCommentsState() throws {
        let document = try RepositoryFiles.text("docs/policy-format.md")
        let start = try #require(document.range(of: "```yaml\nbreaker:"))
        let end = try #require(document.range(of: "```", range: start.upperBound..<document.endIndex))
        let yaml = "version: 1\nname: breaker\nrules:\n  - {status: 5xx, error: status_5xx, action: retry}\n"
            + "  - {status: 404, error: not_found, action: stop}\n"
            + String(document[document.index(start.lowerBound, offsetBy: 8)..<end.lowerBound])
        let breaker = try #require(try PolicyLoader().loadPolicy(yaml: yaml, path: "policy-format.md").breaker)
        let defaults = CircuitBreakerConfiguration()
        #expect(breaker.sampling == defaults.sampling)
        #expect(breaker.failureRatio == defaults.failureRatio)
        #expect(breaker.minimumCalls == defaults.minimumCalls)
        #expect(breaker.breakDuration == defaults.breakDuration)
        #expect(breaker.halfOpenProbes == defaults.halfOpenProbes)
        #expect(breaker.error == defaults.error)
        #expect(defaults.consecutiveFailures == nil && breaker.consecutiveFailures == 10)
        #expect(breaker.breakDuration(opening: 5) == .seconds(300))
        #expect(breaker.failures == .init(rules: [1], errors: [.timeout], statuses: [.range(500...599), .code(429)]))
    }
}
