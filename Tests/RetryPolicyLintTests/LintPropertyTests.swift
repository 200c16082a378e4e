import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicyLint

@Suite("Lint invariants")
struct LintPropertyTests {
    @Test("a policy never differs from itself")
    func diffReflexive() async {
        await propertyCheck(count: 40, input: Gen.int(in: 0...1_000_000)) { seed in
            let policy = PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: seed), name: "random-\(seed)")
            #expect(PolicyDiff.compare(policy, policy).isIdentical)
        }
    }

    @Test("diff is symmetric: the same inputs differ, with the sides swapped")
    func diffSymmetric() async {
        await propertyCheck(count: 25, input: Gen.int(in: 0...1_000_000), Gen.int(in: 0...1_000_000)) { a, b in
            let left = PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: a), name: "random-\(a)")
            let right = PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: b), name: "random-\(b)")
            let forward = PolicyDiff.compare(left, right)
            let backward = PolicyDiff.compare(right, left)
            #expect(forward.differingInputs == backward.differingInputs)
            #expect(Set(forward.differences.map { "\($0.inputText) \($0.left) \($0.right)" })
                == Set(backward.differences.map { "\($0.inputText) \($0.right) \($0.left)" }))
        }
    }

    @Test("compare, deciding each class of inputs once, equals deciding every input, attempt and method")
    func diffEqualsExhaustiveDiff() async {
        await propertyCheck(count: 40, input: Gen.int(in: 0...1_000_000), Gen.int(in: 0...1_000_000)) { a, b in
            let left = Self.withRandomIdempotency(PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: a), name: "random-\(a)"), seed: a)
            // Half the pairs are near twins (one rule changed), as parity
            // pairs are; the rest unrelated.
            var right = a % 2 == 0 ? left : Self.withRandomIdempotency(PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: b), name: "random-\(b)"), seed: b)
            if a % 2 == 0, !right.rules.isEmpty {
                right.rules[b % right.rules.count].action = Rule.Action.allCases[b % Rule.Action.allCases.count]
            }
            let fast = PolicyDiff.compare(left, right)
            let exhaustive = PolicyDiff.compareExhaustively(left, right)
            #expect(fast == exhaustive, "seeds \(a), \(b)")
            let onlyGet = PolicyDiff.compare(left, right, methods: [.get, .post])
            #expect(onlyGet == PolicyDiff.compareExhaustively(left, right, methods: [.get, .post]), "seeds \(a), \(b)")
        }
    }

    @Test("a comparison mirrored is the comparison the other way round")
    func diffMirrored() async {
        await propertyCheck(count: 25, input: Gen.int(in: 0...1_000_000), Gen.int(in: 0...1_000_000)) { a, b in
            let left = Self.withRandomIdempotency(PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: a), name: "random-\(a)"), seed: a)
            let right = Self.withRandomIdempotency(PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: b), name: "random-\(b)"), seed: b)
            let forward = PolicyDiff.compare(left, right)
            let backward = PolicyDiff.compare(right, left)
            // Both walks compare the standard methods in the same order here.
            #expect(forward.methods == backward.methods)
            #expect(forward.mirrored == backward, "seeds \(a), \(b)")
            #expect(forward.mirrored.mirrored == forward)
        }
    }

    /// `policy` with a random set of retryable methods, so that methods
    /// fall into different classes.
    static func withRandomIdempotency(_ policy: Policy, seed: Int) -> Policy {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed) &+ 17)
        var copy = policy
        copy.idempotency.retryableMethods = Set(HTTPMethod.standard.filter { _ in Bool.random(using: &random) })
        return copy
    }

    @Test("a rule RP101 calls shadowed really changes nothing: deleting it leaves every decision as it was")
    func shadowedRulesAreDead() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...1_000_000)) { seed in
            let policy = PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: seed), name: "random-\(seed)")
            let shadowed = ShadowedRule.check(policy, context: LintContext(file: "policy.yaml"))
            for finding in shadowed {
                var without = policy
                without.rules.removeAll { $0.location == finding.location }
                #expect(without.rules.count == policy.rules.count - 1)
                #expect(PolicyDiff.compare(policy, without).isIdentical, "seed \(seed): \(finding)")
            }
        }
    }

    @Test("a rule RP101 does not call shadowed decides something: deleting it changes a decision or it duplicates a later rule")
    func unshadowedRulesAreReachable() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...1_000_000)) { seed in
            let policy = PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: seed), name: "random-\(seed)")
            let shadowedLines = Set(ShadowedRule.check(policy, context: LintContext(file: "policy.yaml")).map(\.location.line))
            let methods = distinguishedMethods(of: [policy])
            for (index, rule) in policy.rules.enumerated() where !shadowedLines.contains(rule.location!.line) {
                let matchesSomething = PolicyInput.all.contains { input in methods.contains { rule.matches(input, method: $0) } }
                guard matchesSomething else { continue }
                let reachable = PolicyInput.all.contains { input in methods.contains { policy.decidingRule(for: input, method: $0) == index } }
                #expect(reachable, "seed \(seed): rule \(index) is never the first match but was not reported")
            }
        }
    }

    @Test("with no default, RP102 reports exactly when some non-2xx input matches no rule")
    func uncoveredIsExact() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...1_000_000)) { seed in
            var policy = PolicyGenerator.lint.policy(seed: UInt64(truncatingIfNeeded: seed), name: "random-\(seed)")
            policy.defaultRule = nil
            let reported = !UncoveredInputs.check(policy, context: LintContext(file: "policy.yaml")).isEmpty
            let methods = distinguishedMethods(of: [policy])
            let gap = PolicyInput.all.contains { input in
                !input.isImplicitSuccess && methods.contains { policy.decidingRule(for: input, method: $0) == nil }
            }
            #expect(reported == gap, "seed \(seed)")
        }
    }
}

/// The first-match rule by a plain scan of the rules, the definition the
/// compiled tables must agree with.
extension Rule {
    fileprivate func matches(_ input: PolicyInput, method: HTTPMethod) -> Bool {
        switch input {
        case .status(let code): matches(status: code, method: method)
        case .transport(let failure): matches(transport: failure, method: method)
        case .grpc(let status): matches(grpc: status, method: method)
        }
    }
}

extension Policy {
    fileprivate func decidingRule(for input: PolicyInput, method: HTTPMethod) -> Int? {
        rules.firstIndex { $0.matches(input, method: method) }
    }
}
