import RetryPolicyCore

/// The rule that decides every (input, method) pair of a policy, for the
/// methods an analysis distinguishes: the core's ``CompiledPolicy``
/// first-match resolution, the same the decider uses, indexed by method
/// position.
struct FirstMatchTable {
    let methods: [HTTPMethod]
    let compiled: CompiledPolicy
    /// The compiled table of each method in ``methods``.
    private let methodSlots: [Int]

    init(policy: Policy, methods: [HTTPMethod]) {
        self.init(compiled: CompiledPolicy(policy: policy), methods: methods)
    }

    /// The table of a policy already compiled (``LintContext/compiled(_:)``).
    init(compiled: CompiledPolicy, methods: [HTTPMethod]) {
        self.methods = methods
        self.compiled = compiled
        methodSlots = methods.map(compiled.methodSlot)
    }

    /// The input slots a rule's statuses, transports and gRPC statuses cover.
    static func inputSlots(of rule: Rule) -> [Int] { CompiledPolicy.inputSlots(of: rule) }

    static func slot(of input: PolicyInput) -> Int {
        switch input {
        case .status(let code): CompiledPolicy.inputSlot(status: code)!
        case .transport(let failure): CompiledPolicy.inputSlot(transport: failure)
        case .grpc(let status): CompiledPolicy.inputSlot(grpc: status)
        }
    }

    /// The deciding rule for `input` sent with the method at `methodIndex`.
    func rule(for input: PolicyInput, methodIndex: Int) -> Int? {
        rule(atSlot: Self.slot(of: input), methodIndex: methodIndex)
    }

    /// The deciding rule for the input in `slot` (see ``inputSlots(of:)``).
    func rule(atSlot slot: Int, methodIndex: Int) -> Int? {
        compiled.firstMatch(inputSlot: slot, methodSlot: methodSlots[methodIndex])
    }

    /// Every rule index that decides at least one pair.
    var reachableRules: Set<Int> { compiled.reachableRules(for: methods) }
}
