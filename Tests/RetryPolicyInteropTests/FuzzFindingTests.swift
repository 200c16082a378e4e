import RetryPolicyCore
import RetryPolicyInterop
import RetryPolicyLint
import RetryPolicyYAML
import Testing

/// Every input the importer fuzz targets (Fuzz/) found a defect with: each
/// must import (every configuration it holds) to policies whose YAML loads
/// back equal and lints, or be refused with located errors; never trap.
@Suite("Importer fuzz findings")
struct FuzzFindingTests {
    static let findings: [(name: String, format: InteropFormat, text: String)] = [
        // Durations and numbers that overflowed 64-bit nanoseconds.
        ("gRPC seconds overflow", .grpc,
         #"{"methodConfig":[{"name":[{}],"retryPolicy":{"maxAttempts":3,"initialBackoff":"99999999999s","maxBackoff":"999999999999s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#),
        ("gRPC {seconds, nanos} overflow", .grpc,
         #"{"methodConfig":[{"name":[{}],"timeout":{"seconds":9999999999,"nanos":9223372036854775807},"retryPolicy":{"maxAttempts":3,"initialBackoff":{"seconds":9223372036854775807},"maxBackoff":"9223372036854775807s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#),
        ("gRPC infinite tokenRatio and NaN multiplier", .grpc,
         "methodConfig:\n  - name: [{}]\n    retryPolicy: {maxAttempts: .inf, initialBackoff: 1s, maxBackoff: 2s, backoffMultiplier: .nan, retryableStatusCodes: [UNAVAILABLE]}\nretryThrottling: {maxTokens: 9223372036854775807, tokenRatio: .inf}\n"),
        ("Envoy {seconds, nanos} overflow", .envoy,
         "route:\n  timeout: {seconds: 9999999999, nanos: 999999999999}\n  retry_policy:\n    retry_on: reset\n    num_retries: 1.5\n    per_try_timeout: {seconds: -1}\n    retry_back_off: {base_interval: {nanos: 1}, max_interval: {seconds: 9223372036854775807}}\n"),
        ("Envoy seconds overflow", .envoy,
         "retry_on: 5xx\nnum_retries: 99999999999999999999\nretry_back_off: {base_interval: 999999999999s, max_interval: 999999999999.999999999s}\nrate_limited_retry_back_off: {reset_headers: [{name: Retry-After}], max_interval: 999999999999s}\n"),
        ("Istio Go duration overflow", .istio,
         "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata: {name: huge}\nspec:\n  http:\n    - retries: {attempts: 3, perTryTimeout: 99999999999h}\n"),
        ("resilience4j backoff above 100 days", .resilience4j,
         "resilience4j.retry:\n  instances:\n    a:\n      maxAttempts: 100\n      waitDuration: 100d\n      enableExponentialBackoff: true\n      exponentialBackoffMultiplier: 100\n      enableRandomizedWait: true\n      randomizedWaitFactor: 0.9\n"),
        ("resilience4j precision overflow", .resilience4j,
         "resilience4j:\n  retry:\n    instances:\n      huge:\n        maxAttempts: 99999999999999999999\n        waitDuration: 99999999999s\n        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: 1e400\n"),
        // Names the loader would refuse or misread.
        ("gRPC default method config named *", .grpc,
         #"{"methodConfig":[{"name":[{}],"retryPolicy":{"maxAttempts":2,"initialBackoff":"1s","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#),
        ("Istio name %", .istio, "kind: VirtualService\nmetadata: {name: \"%\"}\nspec:\n  http:\n    - timeout: 1s\n"),
        ("Istio name 29", .istio, "kind: VirtualService\nmetadata: {name: \"29\"}\nspec:\n  http:\n    - timeout: 1s\n"),
        ("resilience4j name null", .resilience4j, "resilience4j.retry:\n  instances:\n    \"null\": {maxAttempts: 2}\n"),
        ("AWS name over 128", .awsConfig, "[profile \(String(repeating: "p", count: 200))]\nmax_attempts = 3\n"),
        ("Envoy name over 128", .envoy,
         "virtual_hosts:\n  - name: \(String(repeating: "v", count: 200))\n    domains: [\"*\"]\n    routes:\n      - match: {prefix: /}\n        route: {cluster: c, retry_policy: {retry_on: 5xx}}\n"),
        // Foreign text with line breaks, quoted in the policy's comments.
        ("gRPC service name with a line break", .grpc,
         #"{"methodConfig":[{"name":[{"service":"x\ny: z"}],"retryPolicy":{"maxAttempts":2,"initialBackoff":"1s","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}"#),
        ("Envoy retry_on with a line break", .envoy, "route:\n  cluster: c\n  retry_policy: {retry_on: \"5xx,x\\ny: z\"}\n"),
        ("Istio retryOn with NEL, LS and PS", .istio,
         "kind: VirtualService\nmetadata: {name: a}\nspec:\n  http:\n    - retries: {attempts: 2, retryOn: \"5xx,x\\Ny: z,\\Lq: 1,\\Pr: 2\\r\\ns: 3\"}\n"),
        ("resilience4j exception class with a line break", .resilience4j,
         "resilience4j.retry:\n  instances:\n    a:\n      retryExceptions: [\"x\\ny: z\"]\n"),
        ("Istio route timeout below a millisecond", .istio, "reories:\nout: 1.5s\n  source-exhausted\ntimeout: 125us\n"),
        ("Envoy per-try timeout below a millisecond", .envoy, "retry_on: 5xx\nper_try_timeout: 0.0001s\n"),
        ("Envoy reset header with control characters", .envoy,
         "retry_on: 5xx\nrate_limited_retry_back_off: {reset_headers: [{name: \"Retry-After\\u0085x\\u2028\"}]}\n"),
    ]

    @Test("each finding imports to policies that load back, or is refused with located errors", arguments: 0..<Self.findings.count)
    func finding(index: Int) throws {
        let (name, format, text) = Self.findings[index]
        let file = ForeignFile(bytes: Array(text.utf8), path: "finding")
        _ = Importer.detectFormat(file)
        let policies: [ImportedPolicy]
        do {
            let every = try Importer.importEvery(file, from: format)
            policies = every.policies
            for diagnostic in every.errors { #expect(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "\(name)") }
        } catch {
            #expect(!error.diagnostics.isEmpty, "\(name)")
            for diagnostic in error.diagnostics { #expect(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "\(name)") }
            return
        }
        let run = LintRun(root: .wholeFileSystem())
        for imported in policies {
            let reloaded = try loadPolicy(policyFile(imported), path: "imported.yaml")
            #expect(PolicyDiff.compare(reloaded, imported.policy).isIdentical, "\(name)")
            #expect(reloaded.name == imported.name, "\(name)")
            #expect(reloaded.retryAfter.headers.map(\.name) == imported.retryAfter.headers.map(\.name), "\(name)")
            #expect(try run.lint(bytes: Array(policyFile(imported).utf8), path: "imported.yaml").allSatisfy { $0.severity != .error }, "\(name)")
        }
    }

    @Test("a comment keeps foreign text on one line, its line breaks visible")
    func commentsStayComments() throws {
        let text = "route:\n  cluster: c\n  retry_policy: {retry_on: \"5xx,x\\ny: z\"}\n"
        let imported = try Importer.importPolicy(bytes: Array(text.utf8), path: "r.yaml", from: .envoy)
        #expect(try policyFile(imported).contains("x\\u{a}y: z"))
        #expect(try !policyFile(imported).split(separator: "\n").contains { $0.hasPrefix("y:") })
    }
}
