import Logging
import Metrics
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
import RetryPolicyTesting
import Testing

@Suite("Telemetry through swift-metrics and swift-log")
struct TelemetryTests {
    let clock = ManualClock()

    @Test("a retried request counts each attempt by decision, error and outcome, and times attempts and waits")
    func retriedRequest() async throws {
        let metrics = TestMetrics()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.tmdb(jitter: .none)), clock: clock,
            telemetry: RetryTelemetry(factory: metrics))
        let operation = ScriptedOperation(statuses: [503, 429, 200])
        _ = await drive(clock, sleeps: 2) {
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(RetryRequest(endpoint: "movies"), operation: operation.callAsFunction)
            }
        }
        let base = ["retry_policy.policy": "tmdb", "retry_policy.endpoint": "movies"]
        func attempts(_ decision: String, _ error: String, _ status: String) -> Int64 {
            metrics.counter(
                "retry_policy.client.attempts",
                base.merging(["retry_policy.decision": decision, "error.type": error, "http.response.status_code": status]) { $1 })
        }
        #expect(attempts("retry", "status_5xx", "503") == 1)
        #expect(attempts("retry", "status_429", "429") == 1)
        #expect(attempts("success", "none", "200") == 1)
        let success = base.merging(["retry_policy.outcome": "success"]) { $1 }
        #expect(metrics.recorded("retry_policy.client.call.attempts", success.merging(["error.type": "none"]) { $1 }) == [3])
        #expect(metrics.recorded("retry_policy.client.call.retries", success) == [2])
        // Attempts take no time on the manual clock: the whole request is
        // the two backoff waits.
        #expect(metrics.timer("retry_policy.client.call.retry_delay", success) == [3_000_000_000])
        #expect(metrics.timer("retry_policy.client.waits", base.merging(["retry_policy.wait.cause": "backoff"]) { $1 }) == [1_000_000_000, 2_000_000_000])
        #expect(
            metrics.timer(
                "retry_policy.client.call.duration",
                success.merging(["error.type": "none", "retry_policy.stop_reason": "none"]) { $1 }) == [3_000_000_000])
        #expect(metrics.timer("retry_policy.client.attempt.duration", base.merging(["retry_policy.decision": "retry"]) { $1 }).count == 2)
    }

    @Test("retry delay counts only the time no attempt was in flight")
    func retryDelayExcludesAttempts() async throws {
        let metrics = TestMetrics()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.tmdb(jitter: .none)), clock: clock,
            telemetry: RetryTelemetry(factory: metrics))
        // Each attempt takes 250 ms on the manual clock.
        let clock = self.clock
        let operation = ScriptedOperation(statuses: [503, 200])
        _ = await drive(clock, sleeps: 3) {
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(RetryRequest(endpoint: "movies")) { context in
                    try await clock.sleep(for: .milliseconds(250))
                    return try await operation(context)
                }
            }
        }
        let success = ["retry_policy.policy": "tmdb", "retry_policy.endpoint": "movies", "retry_policy.outcome": "success"]
        #expect(metrics.timer("retry_policy.client.call.retry_delay", success) == [1_000_000_000])
        #expect(
            metrics.timer(
                "retry_policy.client.call.duration",
                success.merging(["error.type": "none", "retry_policy.stop_reason": "none"]) { $1 }) == [1_500_000_000])
    }

    @Test("the budget's tokens are a gauge, recorded after each decision")
    func budgetGauge() async throws {
        let metrics = TestMetrics()
        var policy = TestPolicies.tmdb(jitter: .none)
        policy.budget = .awsStandard
        let executor = RetryExecutor(
            decider: RetryDecider(policy: policy), clock: clock, telemetry: RetryTelemetry(factory: metrics))
        let operation = ScriptedOperation(statuses: [503, 200])
        _ = await drive(clock, sleeps: 1) {
            await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(RetryRequest(endpoint: "movies"), operation: operation.callAsFunction)
            }
        }
        let capacity = Double(RetryBudgetConfiguration.awsStandard.capacity)
        let cost = Double(RetryBudgetConfiguration.awsStandard.retryCost)
        // The retry paid its cost; the success after it gave the cost back
        // (the AWS SDKs' quota refunds the last retry's cost).
        #expect(metrics.recorded("retry_policy.budget.tokens", ["retry_policy.policy": "tmdb"]) == [capacity - cost, capacity])
    }

    @Test("seed 004: a failure is counted per error kind and stop reason, with the placement as endpoint")
    func failureByKind() async throws {
        let metrics = TestMetrics()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.mobileSDK()), clock: clock,
            telemetry: RetryTelemetry(factory: metrics))
        for status in [204, 429, 503, 503] {
            _ = await capture { () async throws(RetryFailure) in
                try await executor.runConcurrently(
                    RetryRequest(endpoint: "main_banner"), operation: ScriptedOperation(statuses: [status]).callAsFunction)
            }
        }
        func failures(_ kind: String) -> [Int64] {
            metrics.timer(
                "retry_policy.client.call.duration",
                [
                    "retry_policy.policy": "ios-sdk", "retry_policy.endpoint": "main_banner", "retry_policy.outcome": "failure",
                    "error.type": kind, "retry_policy.stop_reason": "not_retryable",
                ])
        }
        #expect(failures("no_fill").count == 1)
        #expect(failures("status_429").count == 1)
        #expect(failures("status_5xx").count == 2)
        #expect(
            metrics.counter(
                "retry_policy.client.attempts",
                [
                    "retry_policy.policy": "ios-sdk", "retry_policy.endpoint": "main_banner", "retry_policy.decision": "stop",
                    "error.type": "status_5xx", "http.response.status_code": "503",
                ])
                == 2)
    }

    @Test("the failure log line carries error type, status, placement and duration as metadata")
    func failureLogLine() async throws {
        let handler = CapturingLogHandler()
        let logger = Logger(label: "test") { _ in handler }
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.mobileSDK()), clock: clock,
            telemetry: RetryTelemetry(logger: logger, factory: TestMetrics()))
        _ = await capture { () async throws(RetryFailure) in
            try await executor.runConcurrently(RetryRequest(endpoint: "main_banner"), operation: ScriptedOperation(statuses: [503]).callAsFunction)
        }
        let line = try #require(handler.entries.first { $0.level == .info })
        #expect(line.message == "request failed under retry policy")
        #expect(line.metadata["retry.error"] == "status_5xx")
        #expect(line.metadata["retry.status"] == "503")
        #expect(line.metadata["retry.endpoint"] == "main_banner")
        #expect(line.metadata["retry.duration"] != nil)
    }

    @Test("without a bootstrapped backend no metric objects are made")
    func noBackendNoMetrics() {
        let telemetry = RetryTelemetry(factory: NOOPMetricsHandler.instance)
        #expect(!telemetry.recordsMetrics)
        #expect(RetryTelemetry(factory: TestMetrics()).recordsMetrics)
    }
}

/// Remembers log entries.
final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }
    private let storage = LockedValue<[Entry]>([])
    var entries: [Entry] { storage.withLock { $0 } }
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let entry = Entry(
            level: event.level, message: "\(event.message)",
            metadata: (event.metadata ?? [:]).mapValues { "\($0)" })
        storage.withLock { $0.append(entry) }
    }
}
