import RetryPolicyCore

/// Decision tables over the whole input space, and the diff between two of
/// them: what `retry-policy table` and the parity check do for the iOS and
/// Android SDK policies (seed 004).
public enum DecisionTables {
    /// Every status code HTTP defines, every transport failure, on the
    /// first three attempts, for a safe and an unsafe method.
    public static let space: [DecisionInput] = {
        var outcomes = StatusPattern.validCodes.map { AttemptOutcome.status($0) }
        outcomes += TransportFailure.allCases.map { .transport($0) }
        var inputs: [DecisionInput] = []
        for outcome in outcomes {
            for attempt in 1...3 {
                for method in [HTTPMethod.get, .post] {
                    inputs.append(DecisionInput(outcome: outcome, attempt: attempt, method: method))
                }
            }
        }
        return inputs
    }()

    /// The Android SDK's policy: the iOS one, except that Android reports a
    /// 408 as a timeout, the difference a parity diff must find.
    public static let android: Policy = {
        var policy = Workload.singleAttempt
        policy.name = "sdk-android"
        policy.platform = "android"
        policy.rules.insert(Rule(statuses: [.code(408)], error: .timeout, action: .stop), at: 4)
        return policy
    }()

    /// Android's mapping written by hand, like ``HandWritten/singleAttempt``.
    @inlinable
    public static func handWrittenAndroid(_ input: DecisionInput) -> Decision {
        if case .response(408, _) = input.outcome {
            return Decision(action: .stop(SDKError(kind: .timeout, statusCode: 408), .notRetryable))
        }
        return HandWritten.singleAttempt(input)
    }

    /// One row per input of ``space``.
    @inlinable
    public static func table(_ decide: (DecisionInput) -> Decision) -> [Decision.Action] {
        var rows: [Decision.Action] = []
        rows.reserveCapacity(space.count)
        for input in space { rows.append(decide(input).action) }
        return rows
    }

    /// The indices in ``space`` where the two tables decide differently.
    @inlinable
    public static func diff(_ left: [Decision.Action], _ right: [Decision.Action]) -> [Int] {
        var differences: [Int] = []
        for index in left.indices where left[index] != right[index] { differences.append(index) }
        return differences
    }
}

/// The same diff the lint library's `PolicyDiff` computes, written by hand
/// over the iOS and Android mappings: every status and transport failure,
/// at the given attempts and methods.
public enum ParityWorkload {
    public static var ios: Policy { Workload.singleAttempt }
    public static var android: Policy { DecisionTables.android }

    @inlinable
    public static func handWrittenDiff(attempts: ClosedRange<Int>, methods: [HTTPMethod]) -> [DecisionInput] {
        var differing: [DecisionInput] = []
        for status in StatusPattern.validCodes {
            diff(.status(status), attempts: attempts, methods: methods, into: &differing)
        }
        for failure in TransportFailure.allCases {
            diff(.transport(failure), attempts: attempts, methods: methods, into: &differing)
        }
        return differing
    }

    @inlinable
    static func diff(_ outcome: AttemptOutcome, attempts: ClosedRange<Int>, methods: [HTTPMethod], into differing: inout [DecisionInput]) {
        for attempt in attempts {
            for method in methods {
                let input = DecisionInput(outcome: outcome, attempt: attempt, method: method)
                if HandWritten.singleAttempt(input).action != DecisionTables.handWrittenAndroid(input).action {
                    differing.append(input)
                }
            }
        }
    }
}
