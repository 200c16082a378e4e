import RetryPolicyCore
import RetryPolicyYAML
import Testing

/// Ranges are checked once, by the validator, and reported at the value
/// as the file states it, next to the file's other mistakes.
@Suite struct RangeReportingTests {
    static func errors(_ body: String) -> [String] {
        do {
            _ = try PolicyLoader().loadPolicy(yaml: "version: 1\nname: p\n" + body, path: "p.yaml")
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    @Test("a range problem is reported with the file's other problems, at the value")
    func rangeNextToTypeError() {
        #expect(Self.errors("attempts: 0\nbackoff:\n  initial: 1s\n  jitter: 5\n  multiplier: 101\n") == [
            "p.yaml:3:11: error: attempts: expected an integer from 1 to 100, found the integer 0 [RP019]",
            "p.yaml:6:11: error: backoff.jitter: expected none, full, equal or decorrelated, found the integer 5 [RP011]",
            "p.yaml:7:15: error: backoff.multiplier: expected a number from 0 to 100, found the integer 101 [RP019]",
        ])
    }

    @Test("a value taken from another key is reported once, where it is written")
    func derivedValueReportedOnce() {
        #expect(Self.errors("budget:\n  retry_cost: -1\n") == [
            "p.yaml:4:15: error: budget.retry_cost: expected an integer from 0 to 1000000, found the integer -1 [RP019]",
        ])
    }

    @Test("min above max is located at min, with the other problems")
    func minAboveMax() {
        #expect(Self.errors("attempts: x\nbackoff: {initial: 1s, max: 1s, min: 2s}\n") == [
            "p.yaml:3:11: error: attempts: expected an integer from 1 to 100, found the string 'x' [RP011]",
            "p.yaml:4:38: error: backoff.min: expected at most backoff.max (1s), found 2s [RP019] (the floor is applied after the cap; lower 'min' or raise 'max')",
        ])
    }
}
