import Foundation
import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyYAML
import Testing

/// Policies built in code: validated by the checks a file passes, and
/// written as files that load back to the same policy.
@Suite struct PolicyInCodeTests {
    /// `policy` without the places its parts were read from.
    static func stripped(_ policy: Policy) -> Policy {
        var policy = policy
        policy.location = nil
        policy.keyLocations = [:]
        policy.backoff.location = nil
        policy.retryAfter.location = nil
        policy.timeouts.location = nil
        policy.endpoints = policy.endpoints.mapValues { var budget = $0; budget.location = nil; return budget }
        policy.idempotency.location = nil
        policy.budget?.location = nil
        policy.breaker?.location = nil
        policy.hedging?.location = nil
        policy.rules = policy.rules.map { var rule = $0; rule.location = nil; return rule }
        policy.defaultRule?.location = nil
        return policy
    }

    @Test func aPolicyBuiltInCodeIsWrittenAsAFileThatLoadsBackEqual() async throws {
        await propertyCheck(count: 500, input: Gen.uint64()) { seed in
            let policy = PolicyGenerator.everything.policy(seed: seed)
            #expect(policy.problems == [], "\(policy)")
            do {
                let text = try PolicyWriter.yaml(policy)
                let loaded = try PolicyLoader().loadPolicy(yaml: text, path: "written.yaml")
                var expected = Self.stripped(policy)
                if expected.backoff.max == nil { expected.backoff.max = Backoff.ceiling }
                #expect(Self.stripped(loaded) == expected, "\(text)")
            } catch {
                Issue.record("\(error)\n\(policy)")
            }
        }
    }

    @Test func aPolicyInCodeTheLoaderWouldRefuseThrowsTheSameRuleAtAKeyPath() throws {
        var policy = Policy(name: "api", attempts: 0)
        policy.rules = [
            Rule(statuses: [.code(503)], error: "quota", action: .retry),
            Rule(action: .stop),
            Rule(conditions: ["malformed_body"], error: .status5xx, action: .retry),
        ]
        policy.backoff = Backoff(initial: .seconds(1), max: .seconds(2), multiplier: .nan, min: .seconds(3))
        let error = try #require(throws: PolicyValidationError.self) { try policy.validated() }
        #expect(error.problems.map(\.description) == [
            "attempts: expected an integer from 1 to 100, found 0 [RP019]",
            "backoff.min: expected at most backoff.max (2s), found 3s [RP019] (the floor is applied after the cap; lower 'min' or raise 'max')",
            "backoff.multiplier: expected a number from 0 to 100, found nan [RP019]",
            "rules[0].error: expected a standard error kind or one declared under 'errors', found 'quota' [RP016] (declare it under 'errors' or use one of no_fill, network_error, status_429, status_5xx, timeout, internal_error, invalid_placement, unauthorized, not_found, cancelled, decoding_failed)",
            "rules[1]: expected 'status', 'transport', 'condition' or 'grpc', found none [RP023] (a rule without conditions matches nothing; use 'default' for unmatched inputs)",
            "rules[1]: missing required key 'error' (a stop rule reports an error kind) [RP012]",
            "rules[2].condition: expected a condition declared under 'conditions', found 'malformed_body' [RP027] (declare it: conditions: [malformed_body])",
        ])
        // The same mistakes in a file are refused with the same rules.
        let file = """
            version: 1
            name: api
            attempts: 0
            """
        let loaded = try #require(throws: PolicyLoadError.self) { try PolicyLoader().loadPolicy(yaml: file, path: "api.yaml") }
        #expect(loaded.diagnostics.map(\.id) == ["RP019"])
    }

    @Test func attemptsFarAboveTheBoundAreAProblemNotAnOverflow() {
        let policy = Policy(name: "api", attempts: .max)
        #expect(policy.problems.map(\.id) == ["RP019"])
        #expect(throws: PolicyValidationError.self) { try PolicyWriter.yaml(policy) }
    }

    @Test func aBackoffDefinedInCodeHasNoFileForm() {
        var policy = Policy(name: "api", attempts: 3)
        policy.backoff = .custom("fibonacci") { .seconds($0) }
        #expect(policy.problems.isEmpty)
        let error = #expect(throws: PolicyValidationError.self) { try PolicyWriter.yaml(policy) }
        #expect(error?.problems.map(\.keyPath) == ["backoff"])
    }

    @Test func everyShippedPolicyIsValidAndRoundTrips() throws {
        let directory = RepositoryFiles.path("policies")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
            $0.hasSuffix(".yaml") && !$0.hasSuffix(".tests.yaml")
        }
        #expect(!files.isEmpty)
        for file in files.sorted() {
            guard let policy = try? PolicyLoader().loadPolicy(atPath: directory + "/" + file) else { continue }
            #expect(policy.problems == [], "\(file)")
            let text = try PolicyWriter.yaml(policy)
            let loaded = try PolicyLoader().loadPolicy(yaml: text, path: file)
            #expect(Self.stripped(loaded) == Self.stripped(policy), "\(file)\n\(text)")
        }
    }
}
