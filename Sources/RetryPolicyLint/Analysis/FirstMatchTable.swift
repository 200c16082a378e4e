import RetryPolicyCore

/// The rule that decides every (input, method) pair of a policy, computed
/// once by walking the rules in order and filling only empty slots.
///
/// Checks ask "which rule decides this?" thousands of times; scanning the
/// rules for each question is quadratic and a policy with 100,000 rules
/// (hostile or generated) would take minutes. Filling the table costs the
/// sum of what the rules cover, so lint stays fast at any size.
struct FirstMatchTable {
    let methods: [HTTPMethod]
    /// `slots[method][input]`: the deciding rule's index, or -1.
    private var slots: [[Int32]]

    static let inputCount = StatusPattern.validCodes.count + TransportFailure.allCases.count

    init(policy: Policy, methods: [HTTPMethod]) {
        self.methods = methods
        slots = Array(repeating: Array(repeating: -1, count: Self.inputCount), count: methods.count)
        let methodIndex = Dictionary(uniqueKeysWithValues: methods.enumerated().map { ($0.element, $0.offset) })
        for (ruleIndex, rule) in policy.rules.enumerated() {
            let targets: [Int] = rule.methods.map { $0.compactMap { methodIndex[$0] } } ?? Array(methods.indices)
            for slot in Self.inputSlots(of: rule) {
                for method in targets where slots[method][slot] < 0 {
                    slots[method][slot] = Int32(ruleIndex)
                }
            }
        }
    }

    /// The input slots a rule's statuses and transports cover.
    static func inputSlots(of rule: Rule) -> [Int] {
        var result: [Int] = []
        for pattern in rule.statuses {
            let codes = pattern.codes.clamped(to: StatusPattern.validCodes)
            guard !codes.isEmpty else { continue }
            result += codes.map { $0 - StatusPattern.validCodes.lowerBound }
        }
        for transport in rule.transports {
            result.append(StatusPattern.validCodes.count + TransportFailure.allCases.firstIndex(of: transport)!)
        }
        return result
    }

    static func slot(of input: PolicyInput) -> Int {
        switch input {
        case .status(let code): code - StatusPattern.validCodes.lowerBound
        case .transport(let failure): StatusPattern.validCodes.count + TransportFailure.allCases.firstIndex(of: failure)!
        }
    }

    /// The deciding rule for `input` sent with the method at `methodIndex`.
    func rule(for input: PolicyInput, methodIndex: Int) -> Int? {
        rule(atSlot: Self.slot(of: input), methodIndex: methodIndex)
    }

    /// The deciding rule for the input in `slot` (see ``inputSlots(of:)``).
    func rule(atSlot slot: Int, methodIndex: Int) -> Int? {
        let index = slots[methodIndex][slot]
        return index < 0 ? nil : Int(index)
    }

    /// Every rule index that decides at least one pair.
    var reachableRules: Set<Int> {
        var result = Set<Int>()
        for row in slots { for index in row where index >= 0 { result.insert(Int(index)) } }
        return result
    }
}
