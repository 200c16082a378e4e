import RetryPolicyCore

/// A group of inputs on which two policies decide differently, in the same
/// way: `status 500-599, attempts 1-2: retry after 0ms-1s | stop`.
public struct PolicyDifference: Hashable, Sendable, CustomStringConvertible {
    /// Status codes, compressed into ranges; empty for transport and gRPC
    /// groups.
    public var statuses: [ClosedRange<Int>]
    public var transports: [TransportFailure]
    /// gRPC statuses; empty for status and transport groups.
    public var grpc: [GRPCStatusCode] = []
    public var attempts: [ClosedRange<Int>]
    /// The methods the difference applies to; `nil` means every method.
    public var methods: [HTTPMethod]?
    public var left: DecisionOutline.Signature
    public var right: DecisionOutline.Signature

    /// `status 500-599, attempts 1-2`, `transport timeout, dns, attempt 1
    /// (POST)` or `gRPC UNAVAILABLE, attempts 1-3`.
    package var inputText: String {
        var text: String
        if !grpc.isEmpty {
            text = "gRPC " + grpc.map(\.name).joined(separator: ", ")
        } else if statuses.isEmpty {
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
    package var comparedInputs: Int
    /// Whether the gRPC statuses were compared (one of the policies has a
    /// `grpc` rule).
    package var comparedGRPC = false
    /// How many of them decided differently.
    public var differingInputs: Int
    /// The attempt numbers compared.
    public var attempts: ClosedRange<Int>
    public var methods: [HTTPMethod]

    package var isIdentical: Bool { differences.isEmpty }

    /// The same comparison seen from the other side: what
    /// `PolicyDiff.compare(right, left, methods: methods)` returns (the
    /// walk visits the same inputs in the same order, so only the sides of
    /// every difference swap).
    public var mirrored: PolicyComparison {
        var result = self
        for index in result.differences.indices {
            let left = result.differences[index].left
            result.differences[index].left = result.differences[index].right
            result.differences[index].right = left
        }
        return result
    }
}

/// Compares what two policies decide for every status 100-599 and every
/// transport class (and every gRPC status, when either policy has a
/// `grpc` rule), at every attempt number either can reach, for every
/// method either distinguishes. This is how parity between platforms (iOS
/// and Android SDKs) is proven instead of asserted in a document.
public enum PolicyDiff {
    /// Attempts beyond this are not compared: delays saturate at the
    /// backoff maximum long before, and larger values are mistakes lint
    /// reports anyway.
    package static let attemptLimit = 64

    public static func compare(_ left: Policy, _ right: Policy, methods: [HTTPMethod]? = nil) -> PolicyComparison {
        let leftDecider = RetryDecider(policy: left.withoutBudget)
        let rightDecider = RetryDecider(policy: right.withoutBudget)
        let lastAttempt = min(max(left.attempts, right.attempts, 1), attemptLimit)
        let methods = methods ?? distinguishedMethods(of: [left, right])

        // Without headers, a clock or a budget, what a decision's signature
        // depends on besides the attempt number is only: which rule (or
        // default, or implicit outcome) decides the input for the method,
        // whether the method may be retried, and whether the input is a
        // cancellation. Inputs and methods that agree on these for both
        // policies form a class; each class is decided once per attempt,
        // by its first member, instead of once per member (about 30
        // classes instead of 5,400 input/method pairs). The walk below
        // still visits every (input, attempt, method) in the same order,
        // so grouping and counting are unchanged.
        // `compareExhaustively` decides every triple and is held equal to
        // this by tests.
        let leftCompiled = leftDecider.compiledPolicy
        let rightCompiled = rightDecider.compiledPolicy
        // Methods the two policies treat alike (same first-match tables,
        // same retryability) share one kind; usually there are two kinds,
        // idempotent and not, for nine methods.
        struct MethodKind: Hashable {
            var leftTable: Int
            var rightTable: Int
            var leftAllowsRetry: Bool
            var rightAllowsRetry: Bool
        }
        var kinds: [MethodKind] = []
        var kindOfMethod: [Int] = []
        for method in methods {
            let kind = MethodKind(
                leftTable: leftCompiled.methodSlot(method), rightTable: rightCompiled.methodSlot(method),
                leftAllowsRetry: left.idempotency.allowsRetry(method: method, markedIdempotent: false),
                rightAllowsRetry: right.idempotency.allowsRetry(method: method, markedIdempotent: false))
            if let index = kinds.firstIndex(of: kind) {
                kindOfMethod.append(index)
            } else {
                kindOfMethod.append(kinds.count)
                kinds.append(kind)
            }
        }
        let attemptCount = lastAttempt

        var classIndex: [InputClass: Int] = [:]
        // Per class: its first member; per class and attempt: whether the
        // two sides differ (0 not decided yet, 1 alike, 2 different), and
        // the signatures only where they differ.
        var representatives: [(input: PolicyInput, method: HTTPMethod)] = []
        var verdicts: [UInt8] = []
        var differingSignatures: [Int: (left: DecisionOutline.Signature, right: DecisionOutline.Signature)] = [:]
        var classOfKind = [Int](repeating: 0, count: kinds.count)
        // Neighbouring inputs are mostly decided by the same rules (a
        // status class, a range): a key equal to the kind's previous one
        // keeps its class without hashing it again.
        var previousKeyOfKind = [InputClass?](repeating: nil, count: kinds.count)
        var classOfMethod = [Int](repeating: 0, count: methods.count)

        var groups: [GroupKey: [PolicyInput: [Int: Set<HTTPMethod>]]] = [:]
        var groupOrder: [GroupKey] = []
        var differing = 0
        let inputs = PolicyInput.space(of: [left, right])
        for input in inputs {
            let slot = Self.inputSlot(input)
            let cancelled = input == .transport(.cancelled)
            for (kindIndex, kind) in kinds.enumerated() {
                let key = InputClass(
                    left: leftCompiled.source(inputSlot: slot, methodSlot: kind.leftTable),
                    right: rightCompiled.source(inputSlot: slot, methodSlot: kind.rightTable),
                    leftAllowsRetry: kind.leftAllowsRetry, rightAllowsRetry: kind.rightAllowsRetry, cancelled: cancelled)
                if previousKeyOfKind[kindIndex] == key { continue }
                previousKeyOfKind[kindIndex] = key
                if let known = classIndex[key] {
                    classOfKind[kindIndex] = known
                } else {
                    classOfKind[kindIndex] = representatives.count
                    classIndex[key] = representatives.count
                    representatives.append((input, methods[kindOfMethod.firstIndex(of: kindIndex)!]))
                    verdicts.append(contentsOf: repeatElement(0, count: attemptCount))
                }
            }
            for index in methods.indices { classOfMethod[index] = classOfKind[kindOfMethod[index]] }
            // Every attempt of the input's classes decided first (decisions
            // are pure, so their order does not matter): an input on which
            // no class differs at any attempt, most of them, needs no walk
            // over its attempts and methods.
            var inputDiffers = false
            for kindIndex in kinds.indices {
                let classNumber = classOfKind[kindIndex]
                let member = representatives[classNumber]
                for attempt in 1...lastAttempt {
                    let cell = classNumber &* attemptCount &+ (attempt &- 1)
                    if verdicts[cell] == 0 {
                        let decisionInput = DecisionInput(outcome: member.input.outcome, attempt: attempt, method: member.method)
                        let a = leftDecider.outline(decisionInput).signature
                        let b = rightDecider.outline(decisionInput).signature
                        if a == b {
                            verdicts[cell] = 1
                        } else {
                            verdicts[cell] = 2
                            differingSignatures[cell] = (a, b)
                        }
                    }
                    if verdicts[cell] == 2 { inputDiffers = true }
                }
            }
            guard inputDiffers else { continue }
            for attempt in 1...lastAttempt {
                for index in methods.indices {
                    let cell = classOfMethod[index] &* attemptCount &+ (attempt &- 1)
                    guard verdicts[cell] == 2, let pair = differingSignatures[cell] else { continue }
                    differing += 1
                    let method = methods[index]
                    let key = GroupKey(left: pair.left, right: pair.right, domain: GroupKey.domain(of: input))
                    if groups[key] == nil { groupOrder.append(key) }
                    groups[key, default: [:]][input, default: [:]][attempt, default: []].insert(method)
                }
            }
        }
        let compared = inputs.count * lastAttempt * methods.count
        return summarise(
            groups: groups, order: groupOrder, compared: compared, differing: differing,
            lastAttempt: lastAttempt, methods: methods, comparedGRPC: inputs.count > PolicyInput.all.count)
    }

    /// What decides an input for a method, as far as a signature can tell.
    struct InputClass: Hashable {
        var left: CompiledPolicy.Resolution.Source
        var right: CompiledPolicy.Resolution.Source
        var leftAllowsRetry: Bool
        var rightAllowsRetry: Bool
        var cancelled: Bool
    }

    struct GroupKey: Hashable {
        var left: DecisionOutline.Signature
        var right: DecisionOutline.Signature
        /// Statuses, transports and gRPC statuses are grouped apart.
        var domain: Int

        static func domain(of input: PolicyInput) -> Int {
            switch input {
            case .status: 0
            case .transport: 1
            case .grpc: 2
            }
        }
    }

    static func inputSlot(_ input: PolicyInput) -> Int {
        switch input {
        case .status(let code): CompiledPolicy.inputSlot(status: code)!
        case .transport(let failure): CompiledPolicy.inputSlot(transport: failure)
        case .grpc(let status): CompiledPolicy.inputSlot(grpc: status)
        }
    }

    /// The comparison computed by deciding every (input, attempt, method)
    /// with both policies: the definition `compare` must agree with.
    static func compareExhaustively(_ left: Policy, _ right: Policy, methods: [HTTPMethod]? = nil) -> PolicyComparison {
        let leftDecider = RetryDecider(policy: left.withoutBudget)
        let rightDecider = RetryDecider(policy: right.withoutBudget)
        let lastAttempt = min(max(left.attempts, right.attempts, 1), attemptLimit)
        let methods = methods ?? distinguishedMethods(of: [left, right])
        var groups: [GroupKey: [PolicyInput: [Int: Set<HTTPMethod>]]] = [:]
        var groupOrder: [GroupKey] = []
        var compared = 0
        var differing = 0
        let inputs = PolicyInput.space(of: [left, right])
        for input in inputs {
            for attempt in 1...lastAttempt {
                for method in methods {
                    compared += 1
                    let decisionInput = DecisionInput(outcome: input.outcome, attempt: attempt, method: method)
                    let a = leftDecider.outline(decisionInput).signature
                    let b = rightDecider.outline(decisionInput).signature
                    guard a != b else { continue }
                    differing += 1
                    let key = GroupKey(left: a, right: b, domain: GroupKey.domain(of: input))
                    if groups[key] == nil { groupOrder.append(key) }
                    groups[key, default: [:]][input, default: [:]][attempt, default: []].insert(method)
                }
            }
        }
        return summarise(
            groups: groups, order: groupOrder, compared: compared, differing: differing,
            lastAttempt: lastAttempt, methods: methods, comparedGRPC: inputs.count > PolicyInput.all.count)
    }

    /// The differing inputs grouped into ranges for people to read.
    static func summarise(
        groups: [GroupKey: [PolicyInput: [Int: Set<HTTPMethod>]]], order groupOrder: [GroupKey],
        compared: Int, differing: Int, lastAttempt: Int, methods: [HTTPMethod], comparedGRPC: Bool
    ) -> PolicyComparison {
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
                    var grpc: [GRPCStatusCode] = []
                    for input in run.inputs {
                        switch input {
                        case .status(let code): statuses.append(code)
                        case .transport(let failure): transports.append(failure)
                        case .grpc(let status): grpc.append(status)
                        }
                    }
                    differences.append(PolicyDifference(
                        statuses: IntegerRanges.ranges(statuses),
                        transports: transports,
                        grpc: grpc,
                        attempts: IntegerRanges.ranges(attempts),
                        methods: methodSet == allMethods ? nil : methods.filter(methodSet.contains),
                        left: key.left,
                        right: key.right))
                }
            }
        }
        // Statuses, then transports, then gRPC statuses.
        func order(_ difference: PolicyDifference) -> Int {
            if let status = difference.statuses.first?.lowerBound { return status }
            if let failure = difference.transports.first { return 1000 + TransportFailure.allCases.firstIndex(of: failure)! }
            return 2000 + (difference.grpc.first?.rawValue ?? 0)
        }
        differences.sort { lhs, rhs in
            let l = order(lhs)
            let r = order(rhs)
            if l != r { return l < r }
            return lhs.attempts.first!.lowerBound < rhs.attempts.first!.lowerBound
        }
        return PolicyComparison(
            differences: differences, comparedInputs: compared, comparedGRPC: comparedGRPC, differingInputs: differing,
            attempts: 1...lastAttempt, methods: methods)
    }
}
