import RetryPolicyCore
import RetryPolicyYAML
import Testing

@Suite struct BreakerLoadingTests {
    static let head = """
        version: 1
        name: breaker
        attempts: 3
        rules:
          - status: 5xx
            error: status_5xx
            action: retry
          - status: 404
            error: not_found
            action: stop

        """

    static func diagnostics(_ breaker: String) -> [String] {
        do {
            _ = try PolicyLoader().loadPolicy(yaml: head + breaker, path: "breaker.yaml")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("every key loads, rule numbers from 1 become indexes")
    func everyKey() throws {
        let policy = try PolicyLoader().loadPolicy(
            yaml: Self.head + """
                breaker:
                  window: 60s
                  failure_ratio: 0.25
                  minimum_calls: 10
                  consecutive_failures: 5
                  break: 10s
                  break_multiplier: 2
                  max_break: 2m
                  half_open_probes: 3
                  failures:
                    rules: [2]
                    errors: [timeout]
                    statuses: [429, 5xx]
                  error: network_error
                """, path: "breaker.yaml")
        let breaker = try #require(policy.breaker)
        #expect(breaker.sampling == .time(.seconds(60)))
        #expect(breaker.failureRatio == 0.25)
        #expect(breaker.minimumCalls == 10)
        #expect(breaker.consecutiveFailures == 5)
        #expect(breaker.breakDuration == .seconds(10))
        #expect(breaker.breakMultiplier == 2)
        #expect(breaker.maxBreak == .seconds(120))
        #expect(breaker.halfOpenProbes == 3)
        #expect(breaker.failures == .init(rules: [1], errors: [.timeout], statuses: [.code(429), .range(500...599)]))
        #expect(breaker.error == .networkError)
        #expect(policy.keyLocations["breaker.consecutive_failures"]?.line == 15)
    }

    @Test("an empty breaker takes the defaults; a count window is an integer")
    func defaults() throws {
        let policy = try PolicyLoader().loadPolicy(yaml: Self.head + "breaker: {window: 50}\n", path: "b.yaml")
        #expect(policy.breaker == CircuitBreakerConfiguration(sampling: .count(50), location: policy.breaker?.location))
    }

    @Test("located errors: wrong type, out-of-range ratio, unknown key with a suggestion, rule numbers, max below break")
    func errors() {
        #expect(Self.diagnostics("breaker:\n  failure_ratio: 1.5\n") == [
            "breaker.yaml:12:18: error: breaker.failure_ratio: expected a number from 0 to 1, found the number 1.5 [RP019]",
        ])
        #expect(Self.diagnostics("breaker:\n  failure_ratio: 0\n") == [
            "breaker.yaml:12:18: error: breaker.failure_ratio: expected a ratio above 0 and at most 1, found the integer 0 [RP019] (a ratio of 0 would open on the first call; remove the breaker instead)",
        ])
        #expect(Self.diagnostics("breaker:\n  half_open_probe: 3\n") == [
            "breaker.yaml:12:3: error: unknown key 'half_open_probe' in 'breaker'; expected one of: window, failure_ratio, minimum_calls, consecutive_failures, break, break_multiplier, max_break, half_open_probes, failures, error [RP010] (did you mean 'half_open_probes'?)",
        ])
        #expect(Self.diagnostics("breaker:\n  window: true\n") == [
            "breaker.yaml:12:11: error: breaker.window: expected a number of calls (100) or a duration (60s), found the boolean true [RP011] (write 100 for the last 100 calls, or 60s for the calls of the last minute)",
        ])
        #expect(Self.diagnostics("breaker:\n  failures: {rules: [3]}\n") == [
            "breaker.yaml:12:22: error: breaker.failures.rules: expected an integer from 1 to 2, found the integer 3 [RP019]",
        ])
        #expect(Self.diagnostics("breaker:\n  break: 1m\n  max_break: 30s\n") == [
            "breaker.yaml:13:14: error: breaker.max_break: expected a duration of at least the break (1m), found 30s [RP019] (raise max_break or shorten break)",
        ])
        #expect(Self.diagnostics("breaker:\n  error: circuit_opened\n") .count == 1)
        #expect(Self.diagnostics("breaker: 5\n") == [
            "breaker.yaml:11:10: error: breaker: expected a mapping, found the integer 5 [RP011]",
        ])
    }
}
