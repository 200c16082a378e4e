import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// `extends`: the extended file's keys are defaults; mappings merge key by
/// key, lists and scalars replace; locations point at the file each value
/// came from.
@Suite struct ExtendsTests {
    let base = RepositoryFiles.fixture("valid/base.yaml")
    let child = RepositoryFiles.fixture("valid/child.yaml")

    @Test func scalarsAndMappingsInheritKeyByKey() throws {
        let policy = try PolicyLoader().loadPolicy(atPath: child)
        #expect(policy.name == "child")
        #expect(policy.description == "shared defaults")  // inherited scalar
        #expect(policy.attempts == 3)
        #expect(policy.backoff.initial == .milliseconds(100))  // from base
        #expect(policy.backoff.max == .seconds(10))  // overridden
        #expect(policy.backoff.jitter == .full)
        #expect(policy.timeouts.perAttempt == .seconds(5))
        #expect(Set(policy.endpoints.keys) == ["search", "upload"])  // maps merge
        #expect(policy.timeouts(for: "upload") == TimeoutBudget(perAttempt: .seconds(5), total: .seconds(60), location: policy.endpoints["upload"]?.location))
    }

    @Test func listsReplace() throws {
        let policy = try PolicyLoader().loadPolicy(atPath: child)
        #expect(policy.rules.count == 1)
        #expect(policy.rules[0].statuses == [.code(429)])
        // The kind the rule uses is declared in the base's `errors`.
        #expect(policy.rules[0].error == "quota_exceeded")
    }

    @Test func locationsPointAtTheFileThatWroteTheValue() throws {
        let policy = try PolicyLoader().loadPolicy(atPath: child)
        #expect(policy.location?.file == child)
        #expect(policy.rules[0].location == SourceLocation(file: child, line: 9, column: 5))
        #expect(policy.timeouts.location == SourceLocation(file: base, line: 10, column: 3))
        #expect(policy.backoff.location?.file == child)
        #expect(policy.endpoints["search"]?.location?.file == base)
    }

    @Test func textWithExtendsResolvesAgainstItsPath() throws {
        let yaml = "version: 1\nname: inline\nextends: base.yaml\nattempts: 2\n"
        let policy = try PolicyLoader().loadPolicy(yaml: yaml, path: RepositoryFiles.fixture("valid/inline.yaml"))
        #expect(policy.attempts == 2)
        #expect(policy.backoff.max == .seconds(2))
    }

    @Test func theShippedSDKPoliciesTakeTheirBudgetsFromTheSharedFile() throws {
        let ios = try PolicyLoader().loadPolicy(atPath: RepositoryFiles.path("policies/ios-sdk.yaml"))
        #expect(ios.timeouts.perAttempt == .seconds(10))
        #expect(ios.timeouts.location?.file.hasSuffix("policies/timeout-budgets.yaml") == true)
    }

    @Test func idempotencyIsExplicitOnlyWhenWritten() throws {
        let stated = try PolicyLoader().loadPolicy(
            yaml: "version: 1\nname: a\nidempotency: {methods: [GET]}\n", path: "a.yaml")
        let omitted = try PolicyLoader().loadPolicy(yaml: "version: 1\nname: b\n", path: "b.yaml")
        #expect(stated.idempotency.isExplicit)
        #expect(stated.idempotency.retryableMethods == [.get])
        #expect(stated.idempotency.location == SourceLocation(file: "a.yaml", line: 3, column: 14))
        #expect(!omitted.idempotency.isExplicit)
        #expect(omitted.idempotency.retryableMethods == HTTPMethod.defaultRetryable)
    }

    @Test func aStackFileLoadsWithItsLayers() throws {
        let document = try PolicyLoader().loadDocument(atPath: RepositoryFiles.fixture("valid/stack.yaml"))
        guard case .stack(let stack) = document else {
            Issue.record("expected a stack")
            return
        }
        #expect(stack.name == "checkout-path")
        #expect(stack.layers.map(\.name) == ["app", "sdk"])
        #expect(stack.layers.map(\.policyPath) == ["minimal.yaml", "child.yaml"])
        #expect(stack.layers[1].location?.line == 5)
        #expect(stack.maxAmplification == 12)
    }
}
