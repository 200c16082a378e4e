import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// Numbers and durations from foreign files never trap: huge ones are held
/// at the policy format's limits with a warning (or refused where the
/// format itself refuses them), negative and malformed ones are located
/// errors, fractional ones are read exactly or refused.
@Suite("Huge, negative and fractional numbers in foreign files")
struct ForeignNumberTests {
    /// Imports `text`; the result or the located error, never a trap.
    static func outcome(_ text: String, _ format: InteropFormat, selection: String? = nil) -> Result<ImportedPolicy, InteropError> {
        do {
            let imported = try Importer.importPolicy(bytes: Array(text.utf8), path: "foreign", from: format, selection: selection)
            return .success(imported)
        } catch {
            return .failure(error)
        }
    }

    static func expectLoads(_ imported: ImportedPolicy) throws {
        let reloaded = try loadPolicy(policyFile(imported))
        #expect(reloaded.attempts == imported.attempts)
    }

    static func expectRefused(_ result: Result<ImportedPolicy, InteropError>, id: String, line: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        guard case .failure(let error) = result else {
            Issue.record("imported, expected \(id)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.diagnostics.contains { $0.id == id && $0.location.line == line && $0.location.column >= 1 }, "\(error)", sourceLocation: sourceLocation)
    }

    @Test("Istio: a perTryTimeout of 99999999999h is held at 100 days, with a warning at the value")
    func istioHugeDuration() throws {
        for duration in ["99999999999h", "9223372036854775807ns", "99999999999999999999999999s", "2562047h47m16.854775808s"] {
            let text = """
                apiVersion: networking.istio.io/v1
                kind: VirtualService
                metadata: {name: huge}
                spec:
                  http:
                  - retries: {attempts: 3, perTryTimeout: \(duration)}
                    timeout: \(duration)
                """
            let imported = try Self.outcome(text, .istio).get()
            #expect(imported.timeouts.perAttempt == DurationText.maximum, "\(duration)")
            #expect(imported.timeouts.total == DurationText.maximum)
            #expect(imported.warnings.contains { $0.feature == "perTryTimeout" && $0.location.line == 6 })
            try Self.expectLoads(imported)
        }
    }

    @Test("Istio: negative, fractional and huge attempts and malformed durations")
    func istioNumbers() throws {
        func route(_ retries: String) -> String {
            "kind: VirtualService\nmetadata: {name: r}\nspec:\n  http:\n  - retries: {\(retries)}\n"
        }
        Self.expectRefused(Self.outcome(route("attempts: -1"), .istio), id: "RPI03", line: 5)
        Self.expectRefused(Self.outcome(route("attempts: 2.5"), .istio), id: "RPI02", line: 5)
        Self.expectRefused(Self.outcome(route("attempts: 1e400"), .istio), id: "RPI02", line: 5)
        Self.expectRefused(Self.outcome(route("attempts: 99999999999999999999999"), .istio), id: "RPI02", line: 5)
        Self.expectRefused(Self.outcome(route("perTryTimeout: -2s"), .istio), id: "RPI03", line: 5)
        Self.expectRefused(Self.outcome(route("perTryTimeout: 2"), .istio), id: "RPI02", line: 5)
        let many = try Self.outcome(route("attempts: 9223372036854775807"), .istio).get()
        #expect(many.attempts == 100 && many.warnings.contains { $0.feature == "attempts" })
        let fraction = try Self.outcome(route("attempts: 2, perTryTimeout: 1.5s, backoff: 0.0001s"), .istio).get()
        #expect(fraction.timeouts.perAttempt == .milliseconds(1500))
        #expect(fraction.backoff.initial == .milliseconds(1))
        let statuses = try Self.outcome(route("retryOn: \"503,99999999999999999999,600\""), .istio).get()
        #expect(statuses.retriedStatuses == [503])
        #expect(statuses.warnings.filter { $0.feature == "retryOn" }.count == 2)
    }

    @Test("Envoy: huge, negative and fractional numbers and durations, snake_case and camelCase")
    func envoyNumbers() throws {
        Self.expectRefused(Self.outcome("retry_on: 5xx\nnum_retries: -1\n", .envoy), id: "RPI03", line: 2)
        Self.expectRefused(Self.outcome("retryOn: 5xx\nnumRetries: 1.5\n", .envoy), id: "RPI02", line: 2)
        Self.expectRefused(Self.outcome("retry_on: 5xx\nper_try_timeout: -1s\n", .envoy), id: "RPI03", line: 2)
        Self.expectRefused(Self.outcome("retry_on: 5xx\nper_try_timeout: 999999999999999s\n", .envoy), id: "RPI03", line: 2)
        Self.expectRefused(Self.outcome("retry_on: 5xx\nper_try_timeout: {seconds: 9223372036854775807}\n", .envoy), id: "RPI03", line: 2)
        Self.expectRefused(Self.outcome("retry_on: 5xx\nper_try_timeout: {seconds: 1, nanos: -1}\n", .envoy), id: "RPI03", line: 2)
        let many = try Self.outcome("retry_on: 5xx\nnum_retries: 9223372036854775807\n", .envoy).get()
        #expect(many.attempts == 100)
        let huge = try Self.outcome("retryOn: 5xx\nperTryTimeout: 315576000000s\nretryBackOff: {baseInterval: 99999999999.999999999s}\n", .envoy).get()
        #expect(huge.timeouts.perAttempt == DurationText.maximum)
        #expect(huge.backoff.initial == DurationText.maximum && huge.backoff.max == DurationText.maximum)
        #expect(huge.warnings.contains { $0.feature == "per_try_timeout" && $0.location.line == 2 })
        try Self.expectLoads(huge)
        let fraction = try Self.outcome("retry_on: 5xx\nper_try_timeout: 0.0015s\nretry_back_off: {base_interval: 0.000000001s}\n", .envoy).get()
        #expect(fraction.timeouts.perAttempt == .milliseconds(2))
        #expect(fraction.backoff.initial == .milliseconds(1))
        let statuses = Self.outcome("retry_on: retriable-status-codes\nretriable_status_codes: [503, 99999999999999999999, -1, 700]\n", .envoy)
        Self.expectRefused(statuses, id: "RPI02", line: 2)
    }

    @Test("resilience4j: huge, negative and fractional durations, attempts and factors")
    func resilience4jNumbers() throws {
        func instance(_ settings: String) -> String {
            "resilience4j:\n  retry:\n    instances:\n      backend:\n\(settings.split(separator: "\n").map { "        " + $0 }.joined(separator: "\n"))\n"
        }
        for wait in ["P99999999999999D", "9223372036854775807ms", "99999999999999999999999d", "PT99999999999999999999H"] {
            let imported = try Self.outcome(instance("waitDuration: \(wait)"), .resilience4j).get()
            #expect(imported.backoff.initial == DurationText.maximum, "\(wait)")
            #expect(imported.warnings.contains { $0.feature == "waitDuration" && $0.location.line == 5 })
            try Self.expectLoads(imported)
        }
        let exponential = try Self.outcome(instance("maxAttempts: 100\nwaitDuration: 10d\nenableExponentialBackoff: true\nexponentialBackoffMultiplier: 1e300"), .resilience4j).get()
        #expect(exponential.backoff.multiplier == 100 && exponential.backoff.max == DurationText.maximum)
        try Self.expectLoads(exponential)
        let randomized = try Self.outcome(instance("waitDuration: 99999999999999999s\nenableRandomizedWait: true\nrandomizedWaitFactor: 0.999999"), .resilience4j).get()
        try Self.expectLoads(randomized)
        Self.expectRefused(Self.outcome(instance("waitDuration: -5s"), .resilience4j), id: "RPI03", line: 5)
        Self.expectRefused(Self.outcome(instance("waitDuration: 1.5s"), .resilience4j), id: "RPI03", line: 5)
        Self.expectRefused(Self.outcome(instance("maxAttempts: -3"), .resilience4j), id: "RPI03", line: 5)
        Self.expectRefused(Self.outcome(instance("maxAttempts: 1e400"), .resilience4j), id: "RPI02", line: 5)
        Self.expectRefused(Self.outcome(instance("enableExponentialBackoff: true\nexponentialBackoffMultiplier: 0.5"), .resilience4j), id: "RPI03", line: 6)
        Self.expectRefused(Self.outcome(instance("enableExponentialBackoff: true\nexponentialBackoffMultiplier: .nan"), .resilience4j), id: "RPI03", line: 6)
        Self.expectRefused(Self.outcome(instance("enableRandomizedWait: true\nrandomizedWaitFactor: 1e300"), .resilience4j), id: "RPI03", line: 6)
        Self.expectRefused(Self.outcome(instance("enableRandomizedWait: true\nrandomizedWaitFactor: -0.5"), .resilience4j), id: "RPI03", line: 6)
        let fraction = try Self.outcome(instance("waitDuration: PT0.0005S"), .resilience4j).get()
        #expect(fraction.backoff.initial == .milliseconds(1))
    }

    @Test("AWS: huge, negative and fractional max_attempts")
    func awsNumbers() throws {
        let many = Self.outcome("[default]\nmax_attempts = 99999999999999999999999\n", .awsConfig)
        Self.expectRefused(many, id: "RPI03", line: 2)
        let large = try Self.outcome("[default]\nretry_mode = standard\nmax_attempts = 9223372036854775807\n", .awsConfig).get()
        #expect(large.attempts == 100 && large.warnings.contains { $0.feature == "max_attempts" })
        Self.expectRefused(Self.outcome("[default]\nmax_attempts = -1\n", .awsConfig), id: "RPI03", line: 2)
        Self.expectRefused(Self.outcome("[default]\nmax_attempts = 2.5\n", .awsConfig), id: "RPI03", line: 2)
    }

    @Test("gRPC: tokenRatio and maxTokens at the edges")
    func grpcThrottlingEdges() throws {
        let retry = #""methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]"#
        let large = try Self.outcome(#"{"retryThrottling": {"maxTokens": 4294967295, "tokenRatio": 4294967295.9999}, \#(retry)}"#, .grpc).get()
        #expect(large.budget?.maxTokens == 1000 && large.budget?.grpcThrottling?.tokenRatio == 1_000_000)
        #expect(large.warnings.contains { $0.feature == "maxTokens" } && large.warnings.contains { $0.feature == "tokenRatio" })
        try Self.expectLoads(large)
        Self.expectRefused(Self.outcome(#"{"retryThrottling": {"maxTokens": 4294967296, "tokenRatio": 1}, \#(retry)}"#, .grpc), id: "RPI03", line: 1)
        Self.expectRefused(Self.outcome(#"{"retryThrottling": {"maxTokens": 10, "tokenRatio": 1e-400}, \#(retry)}"#, .grpc), id: "RPI03", line: 1)
        Self.expectRefused(Self.outcome(#"{"retryThrottling": {"maxTokens": 10, "tokenRatio": 99999999999999999999999}, \#(retry)}"#, .grpc), id: "RPI03", line: 1)
    }
}
