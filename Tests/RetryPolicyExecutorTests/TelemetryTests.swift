import Logging
import Metrics
import RetryPolicyCore
import RetryPolicyTestSupport
import RetryPolicyExecutor
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
        let base = ["policy": "tmdb", "endpoint": "movies"]
        #expect(metrics.counter("retry_policy_attempts", base.merging(["decision": "retry", "error": "retryable", "outcome": "503"]) { $1 }) == 1)
        #expect(metrics.counter("retry_policy_attempts", base.merging(["decision": "retry", "error": "retryable", "outcome": "429"]) { $1 }) == 1)
        #expect(metrics.counter("retry_policy_attempts", base.merging(["decision": "success", "error": "none", "outcome": "200"]) { $1 }) == 1)
        #expect(metrics.counter("retry_policy_requests", base.merging(["result": "success", "error": "none", "reason": "none"]) { $1 }) == 1)
        #expect(metrics.timer("retry_policy_waits", base.merging(["cause": "backoff"]) { $1 }) == [1_000_000_000, 2_000_000_000])
        #expect(metrics.timer("retry_policy_request_duration", base.merging(["result": "success"]) { $1 }) == [3_000_000_000])
        #expect(metrics.timer("retry_policy_attempt_duration", base.merging(["decision": "retry"]) { $1 }).count == 2)
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
        func failures(_ kind: String) -> Int64 {
            metrics.counter(
                "retry_policy_requests",
                ["policy": "ios-sdk", "endpoint": "main_banner", "result": "failure", "error": kind, "reason": "not_retryable"])
        }
        #expect(failures("no_fill") == 1)
        #expect(failures("status_429") == 1)
        #expect(failures("status_5xx") == 2)
        #expect(
            metrics.counter(
                "retry_policy_attempts",
                ["policy": "ios-sdk", "endpoint": "main_banner", "decision": "stop", "error": "status_5xx", "outcome": "503"])
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
