import RetryPolicyCore

/// A group of inputs on which two policies decide differently, in the same
/// way: `status 500-599, attempts 1-2: retry after 0ms-1s | stop`.
public struct PolicyDifference: Hashable, Sendable, CustomStringConvertible {
    /// Status codes, compressed into ranges; empty for transport groups.
    public var statuses: [ClosedRange<Int>]
    public var transports: [TransportFailure]
    public var attempts: [ClosedRange<Int>]
    /// The methods the difference applies to; `nil` means every method.
    public var methods: [HTTPMethod]?
    public var left: DecisionOutline.Signature
    public var right: DecisionOutline.Signature

    /// `status 500-599, attempts 1-2` or `transport timeout, dns, attempt 1 (POST)`.
    public var inputText: String {
        var text: String
        if statuses.isEmpty {
            text = "transport " + transports.map(\.rawValue).joined(separator: ", ")
        } else {
            text = "status " + statuses.map { IntegerRanges.text($0) }.joined(separator: ", ")
        }
        let attemptText = attempts.map { IntegerRanges.text($0) }.joined(separator: ", ")
        let single = attempts.count == 1 && attempts[0].count == 1
        text += ", attempt\(single ? "" : "s") \(attemptText)"
        if let methods { text += " (" + methods.map(\.rawValue).joined(separator: ", ") + ")" }
        return text
    }

    public var description: String { "\(inputText): \(left) | \(right)" }
}

/// The result of comparing two policies over the whole input space.
public struct PolicyComparison: Hashable, Sendable {
    public var differences: [PolicyDifference]
    /// How many (input, attempt, method) triples were compared.
    public var comparedInputs: Int
    /// How many of them decided differently.
    public var differingInputs: Int
    /// The attempt numbers compared.
    public var attempts: ClosedRange<Int>
    public var methods: [HTTPMethod]

    public var isIdentical: Bool { differences.isEmpty }
}

/// Compares what two policies decide for every status 100-599 and every
/// transport class, at every attempt number either can reach, for every
/// method either distinguishes. This is how parity between platforms (iOS
/// and Android SDKs) is proven instead of asserted in a document.
public enum PolicyDiff {
    /// Attempts beyond this are not compared: delays saturate at the
    /// backoff maximum long before, and larger values are mistakes lint
    /// reports anyway.
    public static let attemptLimit = 64

    public static func compare(_ left: Policy, _ right: Policy, methods: [HTTPMethod]? = nil) -> PolicyComparison {
        let leftDecider = RetryDecider(policy: left.withoutBudget)
        let rightDecider = RetryDecider(policy: right.withoutBudget)
        let lastAttempt = min(max(left.attempts, right.attempts, 1), attemptLimit)
        let methods = methods ?? distinguishedMethods(of: [left, right])

        struct GroupKey: Hashable {
            var left: DecisionOutline.Signature
            var right: DecisionOutline.Signature
            var isTransport: Bool
        }
        // group -> input -> attempt -> methods
        var groups: [GroupKey: [PolicyInput: [Int: Set<HTTPMethod>]]] = [:]
        var groupOrder: [GroupKey] = []
        var compared = 0
        var differing = 0
        for input in PolicyInput.all {
            for attempt in 1...lastAttempt {
                for method in methods {
                    compared += 1
                    let decisionInput = DecisionInput(outcome: input.outcome, attempt: attempt, method: method)
                    let a = leftDecider.outline(decisionInput).signature
                    let b = rightDecider.outline(decisionInput).signature
                    guard a != b else { continue }
                    differing += 1
                    let key = GroupKey(left: a, right: b, isTransport: { if case .transport = input { true } else { false } }())
                    if groups[key] == nil { groupOrder.append(key) }
                    groups[key, default: [:]][input, default: [:]][attempt, default: []].insert(method)
                }
            }
        }

        var differences: [PolicyDifference] = []
        let allMethods = Set(methods)
        for key in groupOrder {
            guard let byInput = groups[key] else { continue }
            // Profile of one input: method set -> attempts.
            typealias Profile = [Set<HTTPMethod>: Set<Int>]
            func profile(_ attempts: [Int: Set<HTTPMethod>]) -> Profile {
                var result: Profile = [:]
                for (attempt, methodSet) in attempts { result[methodSet, default: []].insert(attempt) }
                return result
            }
            // Inputs with the same profile form one group, whether or not
            // they are adjacent: "status 500, 502-599" reads better than two
            // groups split by a 501 that behaves differently.
            var runs: [(inputs: [PolicyInput], profile: Profile)] = []
            for input in byInput.keys.sorted() {
                let current = profile(byInput[input]!)
                if let index = runs.firstIndex(where: { $0.profile == current }) {
                    runs[index].inputs.append(input)
                } else {
                    runs.append(([input], current))
                }
            }
            for run in runs {
                let orderedProfile = run.profile.sorted { $0.value.min()! < $1.value.min()! }
                for (methodSet, attempts) in orderedProfile {
                    var statuses: [Int] = []
                    var transports: [TransportFailure] = []
                    for input in run.inputs {
                        switch input {
                        case .status(let code): statuses.append(code)
                        case .transport(let failure): transports.append(failure)
                        }
                    }
                    differences.append(PolicyDifference(
                        statuses: IntegerRanges.ranges(statuses),
                        transports: transports,
                        attempts: IntegerRanges.ranges(attempts),
                        methods: methodSet == allMethods ? nil : methods.filter(methodSet.contains),
                        left: key.left,
                        right: key.right))
                }
            }
        }
        differences.sort { lhs, rhs in
            let l = lhs.statuses.first?.lowerBound ?? (1000 + TransportFailure.allCases.firstIndex(of: lhs.transports.first ?? .unknown)!)
            let r = rhs.statuses.first?.lowerBound ?? (1000 + TransportFailure.allCases.firstIndex(of: rhs.transports.first ?? .unknown)!)
            if l != r { return l < r }
            return lhs.attempts.first!.lowerBound < rhs.attempts.first!.lowerBound
        }
        return PolicyComparison(
            differences: differences, comparedInputs: compared, differingInputs: differing,
            attempts: 1...lastAttempt, methods: methods)
    }
}

extension DecisionOutline.Signature: CustomStringConvertible {
    public var description: String {
        switch action {
        case .success: "success"
        case .retry: "retry after \(delay.map(DecisionOutline.text) ?? "0s") [\(error?.rawValue ?? "internal_error")]"
        case .stop: "stop: \(error?.rawValue ?? "internal_error") (\(reason?.rawValue ?? "not_retryable"))"
        }
    }
}
