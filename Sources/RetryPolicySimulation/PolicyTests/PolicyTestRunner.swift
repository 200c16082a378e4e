import RetryPolicyCore

/// A case whose decision differed from the expectation.
public struct PolicyTestFailure: Sendable, CustomStringConvertible {
    package struct Mismatch: Sendable, CustomStringConvertible {
        package var field: String
        package var expected: String
        package var actual: String

        /// `action: expected stop, got retry`; the values may quote the test
        /// file or the policy (an error name), so they are made safe to print.
        package var description: String {
            "\(field): expected \(DisplayText.escaped(expected)), got \(DisplayText.escaped(actual))"
        }
    }

    public var name: String
    public var location: SourceLocation
    package var mismatches: [Mismatch]
    /// The whole actual result, for context.
    public var actual: String

    /// `file:line:col: case '503 retries' failed: action: expected stop, got retry`,
    /// with the path, the case name and the values (all from the files)
    /// made safe to print.
    public var description: String {
        "\(DisplayText.escaped(location.description)): case '\(DisplayText.escaped(name))' failed: "
            + "\(mismatches.map(\.description).joined(separator: "; ")) (actual: \(DisplayText.escaped(actual)))"
    }
}

/// The outcome of one suite.
public struct PolicyTestResult: Sendable {
    /// One case or sequence, in file order.
    public struct Outcome: Sendable {
        public var name: String
        public var location: SourceLocation
        /// `nil` when the case passed.
        public var failure: PolicyTestFailure?
    }

    public var suite: PolicyTestSuite
    public var passed: Int
    public var failures: [PolicyTestFailure]
    public var outcomes: [Outcome]

    public var total: Int { passed + failures.count }
}

/// Runs suites against their policies with the real decider.
public enum PolicyTestRunner {
    public static func run(_ suite: PolicyTestSuite, policy: Policy) -> PolicyTestResult {
        var passed = 0
        var failures: [PolicyTestFailure] = []
        var outcomes: [PolicyTestResult.Outcome] = []
        for testCase in suite.cases {
            // A fresh decider per case: budgets and cooldowns must not leak
            // between cases.
            let decider = RetryDecider(policy: policy)
            var input = testCase.input
            if input.now == nil { input.now = RequestTimeline.origin }
            let outline = decider.outline(input)
            let mismatches = compare(testCase.expect, outline, policy: policy)
            if mismatches.isEmpty {
                passed += 1
                outcomes.append(.init(name: testCase.name, location: testCase.location, failure: nil))
            } else {
                let failure = PolicyTestFailure(name: testCase.name, location: testCase.location, mismatches: mismatches, actual: describe(outline))
                failures.append(failure)
                outcomes.append(.init(name: testCase.name, location: testCase.location, failure: failure))
            }
        }
        for sequence in suite.sequences {
            let timeline = RequestTimeline.simulate(
                policy: policy, responses: sequence.responses, seed: sequence.seed, latency: sequence.latency,
                method: sequence.method, markedIdempotent: sequence.markedIdempotent, endpoint: sequence.endpoint)
            var mismatches: [PolicyTestFailure.Mismatch] = []
            // A condition the policy does not declare is a typo: it would
            // quietly take the default.
            for response in sequence.responses {
                if case .condition(let condition) = response.outcome, !policy.conditions.contains(condition) {
                    mismatches.append(
                        .init(field: "responses", expected: "a condition the policy declares", actual: "condition \(condition)"))
                }
            }
            let expect = sequence.expect
            let result = timeline.result
            if let action = expect.result, action != result.action {
                mismatches.append(.init(field: "result", expected: action.rawValue, actual: result.action.rawValue))
            }
            if let error = expect.error, !matches(error: error, result.error, policy: policy) {
                mismatches.append(.init(field: "error", expected: error, actual: result.error?.rawValue ?? "none"))
            }
            if let reason = expect.reason, reason != result.reason {
                mismatches.append(.init(field: "reason", expected: reason.rawValue, actual: result.reason?.rawValue ?? "none"))
            }
            if let attempts = expect.attempts, attempts != timeline.attempts.count {
                mismatches.append(.init(field: "attempts", expected: "\(attempts)", actual: "\(timeline.attempts.count)"))
            }
            if let maxElapsed = expect.maxElapsed, timeline.elapsed > maxElapsed {
                mismatches.append(.init(field: "max_elapsed", expected: "at most \(maxElapsed.formattedForHumans)", actual: timeline.elapsed.formattedForHumans))
            }
            if mismatches.isEmpty {
                passed += 1
                outcomes.append(.init(name: sequence.name, location: sequence.location, failure: nil))
            } else {
                let actual = "\(describe(result)) after \(plural(timeline.attempts.count, "attempt")) in \(timeline.elapsed.formattedForHumans)"
                let failure = PolicyTestFailure(name: sequence.name, location: sequence.location, mismatches: mismatches, actual: actual)
                failures.append(failure)
                outcomes.append(.init(name: sequence.name, location: sequence.location, failure: failure))
            }
        }
        return PolicyTestResult(suite: suite, passed: passed, failures: failures, outcomes: outcomes)
    }

    static func compare(_ expect: DecisionExpectation, _ outline: DecisionOutline, policy: Policy) -> [PolicyTestFailure.Mismatch] {
        var mismatches: [PolicyTestFailure.Mismatch] = []
        if let action = expect.action, action != outline.action {
            mismatches.append(.init(field: "action", expected: action.rawValue, actual: outline.action.rawValue))
        }
        if let error = expect.error, !matches(error: error, outline.error, policy: policy) {
            mismatches.append(.init(field: "error", expected: error, actual: outline.error?.rawValue ?? "none"))
        }
        if let reason = expect.reason, reason != outline.reason {
            mismatches.append(.init(field: "reason", expected: reason.rawValue, actual: outline.reason?.rawValue ?? "none"))
        }
        if expect.delayMin != nil || expect.delayMax != nil {
            let actual = outline.delay.map(DecisionText.delay) ?? "no delay"
            let expectedText: String
            switch (expect.delayMin, expect.delayMax) {
            case (let low?, let high?): expectedText = DecisionText.delay(low...max(low, high))
            case (let low?, nil): expectedText = "at least \(low.formattedForHumans)"
            case (nil, let high?): expectedText = "at most \(high.formattedForHumans)"
            case (nil, nil): expectedText = "a delay"
            }
            if let delay = outline.delay {
                if let low = expect.delayMin, low != delay.lowerBound {
                    mismatches.append(.init(field: "delay.min", expected: low.formattedForHumans, actual: delay.lowerBound.formattedForHumans))
                }
                if let high = expect.delayMax, high != delay.upperBound {
                    mismatches.append(.init(field: "delay.max", expected: high.formattedForHumans, actual: delay.upperBound.formattedForHumans))
                }
            } else {
                mismatches.append(.init(field: "delay", expected: expectedText, actual: actual))
            }
        }
        if let rule = expect.rule, !rule.matches(outline.rule) {
            let actual = outline.rule.map { rule.file == nil ? "line \($0.line)" : "\($0.file):\($0.line)" + (rule.column == nil ? "" : ":\($0.column)") }
            mismatches.append(.init(field: "rule", expected: rule.description, actual: actual ?? "no rule"))
        }
        return mismatches
    }

    /// An expected error matches its kind or the kind's name on any
    /// platform the policy knows.
    static func matches(error expected: String, _ actual: SDKError.Kind?, policy: Policy) -> Bool {
        guard let actual else { return expected == "none" }
        if expected == actual.rawValue { return true }
        let platforms = Set(policy.errorNames.platforms + PlatformNames.standard.platforms + [policy.platform].compactMap { $0 })
        return platforms.contains { policy.platformName(of: actual, on: $0) == expected }
    }

    static func describe(_ outline: DecisionOutline) -> String { outline.description }
}
