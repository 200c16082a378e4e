import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyTesting
import RetryPolicyTestSupport
import Testing

/// The observer, telemetry, tracing and shadow policy are one value; the
/// executor's separate properties are views of it, and setting either
/// decides what a request reports.
@Suite("RetryHooks: one value for everything an executor reports to")
struct RetryHooksTests {
    let clock = ManualClock()

    @Test("hooks given whole reach every request, and the separate properties read them")
    func hooksGivenWhole() async throws {
        let log = EventLog()
        let executor = RetryExecutor(
            decider: RetryDecider(policy: TestPolicies.tmdb()), clock: clock,
            hooks: RetryHooks(observer: log.observer, tracing: nil))
        #expect(executor.observer != nil)
        #expect(executor.telemetry == nil)
        #expect(executor.tracing == nil)
        let operation = ScriptedOperation(statuses: [200])
        _ = try await executor.runConcurrently(operation: operation.callAsFunction)
        #expect(log.events.contains(.succeeded(attempts: 1, elapsed: .zero)))
    }

    @Test("setting a property changes the hooks, and removing the last one silences the executor")
    func propertiesAreViews() async throws {
        let log = EventLog()
        var executor = RetryExecutor(decider: RetryDecider(policy: TestPolicies.tmdb()), clock: clock, tracing: nil)
        #expect(executor.hooks.isEmpty)
        executor.observer = log.observer
        #expect(executor.hooks.observer != nil)
        #expect(!executor.hooks.isEmpty)
        _ = try await executor.runConcurrently(operation: ScriptedOperation(statuses: [200]).callAsFunction)
        let reported = log.events.count
        #expect(log.events.last == .succeeded(attempts: 1, elapsed: .zero))

        executor.hooks = RetryHooks(tracing: nil)
        #expect(executor.observer == nil)
        _ = try await executor.runConcurrently(operation: ScriptedOperation(statuses: [200]).callAsFunction)
        #expect(log.events.count == reported)
    }
}
