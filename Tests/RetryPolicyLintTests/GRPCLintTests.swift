import Foundation
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyYAML
import Testing

@testable import RetryPolicyLint

/// Lint, `diff` and `table` over `grpc` rules.
@Suite("Lint, diff and table of gRPC rules")
struct GRPCLintTests {
    static func grpcPolicy() -> Policy {
        var policy = cleanPolicy()
        policy.rules.append(Rule(grpc: [.unavailable, .resourceExhausted], error: .status5xx, action: .retry, location: at(26)))
        return policy
    }

    static func findings(_ policy: Policy) -> [LintFinding] {
        PolicyLinter().check(policy: policy, context: LintContext(file: "policy.yaml"))
    }

    @Test("A policy with gRPC rules is as clean as the baseline")
    func clean() {
        #expect(Self.findings(Self.grpcPolicy()).isEmpty)
    }

    @Test("RP101: a gRPC rule whose codes earlier gRPC rules match is shadowed; an HTTP rule does not shadow one")
    func shadowed() throws {
        var policy = Self.grpcPolicy()
        policy.rules.append(Rule(grpc: [.unavailable], error: .status5xx, action: .stop, location: at(27)))
        let found = Self.findings(policy).filter { $0.id == "RP101" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 27)
        #expect(found[0].message.contains("rule at line 26 already matches every input it matches"))
        var separate = cleanPolicy()  // 5xx at line 23 is retried
        separate.rules.append(Rule(grpc: [.unavailable], error: .status5xx, action: .stop, location: at(27)))
        #expect(!Self.findings(separate).contains { $0.id == "RP101" })
    }

    @Test("RP102 lists the gRPC statuses (OK aside) nothing covers, in a policy with gRPC rules only")
    func uncovered() throws {
        var policy = Self.grpcPolicy()
        policy.defaultRule = nil
        let found = Self.findings(policy).filter { $0.id == "RP102" }
        try #require(found.count == 1)
        #expect(found[0].message.contains("; gRPC CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND,"))
        #expect(!found[0].message.contains("UNAVAILABLE"))
        #expect(!found[0].message.contains(" OK"))
        var http = cleanPolicy()
        http.defaultRule = nil
        #expect(Self.findings(http).filter { $0.id == "RP102" }.allSatisfy { !$0.message.contains("gRPC") })
    }

    @Test("RP108: a gRPC rule or default retrying a status that says the request is wrong; UNAUTHENTICATED with a refresh is fine")
    func retriedClientErrors() throws {
        var policy = Self.grpcPolicy()
        policy.rules.append(Rule(grpc: [.invalidArgument, .unavailable, .notFound], error: .status5xx, action: .retry, location: at(27)))
        policy.rules.append(Rule(grpc: [.unauthenticated], error: .unauthorized, action: .retry, refreshCredentials: true, location: at(28)))
        let found = Self.findings(policy).filter { $0.id == "RP108" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 27)
        #expect(found[0].message == "rule at line 27 retries gRPC INVALID_ARGUMENT, NOT_FOUND; these say the request is wrong, and it fails the same way again")
        var retryingDefault = Self.grpcPolicy()
        retryingDefault.defaultRule = DefaultRule(error: .networkError, action: .retry, location: at(28))
        let byDefault = Self.findings(retryingDefault).filter { $0.id == "RP108" }
        #expect(byDefault.map(\.message).contains { $0.hasPrefix("the default retries gRPC INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED, FAILED_PRECONDITION, OUT_OF_RANGE, UNIMPLEMENTED, UNAUTHENTICATED;") })
    }

    @Test("diff compares the gRPC statuses when a side has gRPC rules, and names them")
    func diff() throws {
        let left = Self.grpcPolicy()
        var right = left
        right.rules[right.rules.count - 1].grpc = [.unavailable]
        let comparison = PolicyDiff.compare(left, right)
        let difference = try #require(comparison.differences.first)
        // Retried for idempotent methods at attempts 1 and 2, stopped for
        // the others and at the last attempt: four groups, all of one code.
        #expect(comparison.differences.count == 4)
        #expect(comparison.differences.allSatisfy { $0.grpc == [.resourceExhausted] && $0.statuses.isEmpty })
        #expect(difference.inputText == "gRPC RESOURCE_EXHAUSTED, attempt 1 (GET, HEAD, PUT, DELETE, OPTIONS)")
        let text = comparison.text(first: "a.yaml", second: "b.yaml")
        #expect(text.hasPrefix("a.yaml and b.yaml differ on 27 of 14229 inputs (statuses 100-599, 17 gRPC statuses and 10 transport classes x attempts 1-3 x 9 methods):\n"))
        #expect(text.contains("  gRPC RESOURCE_EXHAUSTED, attempt 3:\n    a.yaml: stop: status_5xx (attempts_exhausted)\n    b.yaml: stop: network_error (not_retryable)\n"))
        #expect(comparison == PolicyDiff.compareExhaustively(left, right))
        // Without gRPC rules on either side, the gRPC statuses are not inputs.
        let http = PolicyDiff.compare(cleanPolicy(), cleanPolicy())
        #expect(http.comparedInputs == PolicyInput.all.count * 3 * distinguishedMethods(of: [cleanPolicy()]).count)
        #expect(!http.text(first: "a", second: "b").contains("gRPC"))
    }

    @Test("table shows gRPC rows, grouped by decision, for a policy with gRPC rules")
    func table() throws {
        let table = ErrorTable(policy: Self.grpcPolicy())
        let rows = table.rows.filter { !$0.grpc.isEmpty }
        try #require(rows.count == 3)
        #expect(rows[0].grpc == [.ok])
        #expect(rows[1].grpc == GRPCStatusCode.allCases.filter { ![.ok, .resourceExhausted, .unavailable].contains($0) })
        #expect(rows[2].grpc == [.resourceExhausted, .unavailable])
        #expect(rows[2].retries)
        #expect(rows[2].inputText == "gRPC RESOURCE_EXHAUSTED, UNAVAILABLE")
        #expect(table.markdown.contains("| gRPC RESOURCE_EXHAUSTED, UNAVAILABLE | `status_5xx` | Yes (up to 3 attempts) | A gRPC call ended with one of these statuses; backoff 1s-10s, full jitter; respect grpc-retry-pushback-ms (cap 1m) |\n"))
        #expect(table.markdown.contains("| gRPC OK | Success | N/A | A gRPC call ended with OK |\n"))
        #expect(ErrorTable(policy: cleanPolicy()).rows.allSatisfy { $0.grpc.isEmpty })
    }

    /// Lints `stack` beside `files` in a fresh directory.
    static func lintStack(_ stack: String, files: [String: String]) throws -> [LintFinding] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("grpc-stack-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try stack.write(toFile: directory + "/stack.yaml", atomically: true, encoding: .utf8)
        for (name, text) in files { try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        return LintRun(root: try PolicyRoot(directory: directory)).lint(file: directory + "/stack.yaml")
    }

    static let stack = """
        version: 1
        name: checkout
        stack:
          - {name: interceptor, policy: app.yaml}
          - {name: channel, policy: channel.yaml}
        max_amplification: 100

        """

    static func app(attempts: Int) -> String {
        """
        version: 1
        name: app
        attempts: \(attempts)
        backoff: {initial: 100ms, max: 2s, multiplier: 2, jitter: full}
        retry_after: {honor: true, cap: 30s}
        rules:
          - {grpc: UNAVAILABLE, error: status_5xx, action: retry}
        default: {error: internal_error, action: stop}

        """
    }

    static func channel(_ methodConfig: String) -> String {
        #"{"methodConfig": [{"name": [{}]\#(methodConfig)}]}"# + "\n"
    }

    @Test("RP128: a gRPC service config that retries, under a policy this engine applies, states the product")
    func twoRetryLayers() throws {
        let retry = #", "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}"#
        let found = try Self.lintStack(Self.stack, files: ["app.yaml": Self.app(attempts: 3), "channel.yaml": Self.channel(retry)])
            .filter { $0.id == "RP128" }
        try #require(found.count == 1)
        #expect(found[0].location.line == 5)
        #expect(found[0].message == "layer channel is a gRPC service config whose retryPolicy makes up to 4 attempts inside each attempt of interceptor (3 attempts): 4 x 3 = 12 calls per request")
        // Below max_amplification, RP113 is silent: RP128 is not about the threshold.
        let all = try Self.lintStack(Self.stack, files: ["app.yaml": Self.app(attempts: 3), "channel.yaml": Self.channel(retry)])
        #expect(!all.contains { $0.id == "RP113" })

        let hedge = #", "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0.5s", "nonFatalStatusCodes": ["UNAVAILABLE"]}"#
        let hedged = try Self.lintStack(Self.stack, files: ["app.yaml": Self.app(attempts: 2), "channel.yaml": Self.channel(hedge)])
            .filter { $0.id == "RP128" }
        #expect(hedged.map(\.message) == ["layer channel is a gRPC service config whose hedgingPolicy makes up to 3 attempts inside each attempt of interceptor (2 attempts): 3 x 2 = 6 calls per request"])
    }

    @Test("RP128 is silent when one layer makes a single attempt")
    func oneRetryLayer() throws {
        let retry = #", "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}"#
        let single = try Self.lintStack(Self.stack, files: ["app.yaml": Self.app(attempts: 1), "channel.yaml": Self.channel(retry)])
        #expect(!single.contains { $0.id == "RP128" })
        let noRetry = try Self.lintStack(Self.stack, files: ["app.yaml": Self.app(attempts: 3), "channel.yaml": Self.channel(#", "timeout": "5s""#)])
        #expect(!noRetry.contains { $0.id == "RP128" })
    }
}
