/// A policy compiled for deciding: the policy itself, the shared budget and
/// cooldown, and the first-match resolution of every input.
///
/// This is the one place that answers "which rule decides this status or
/// transport failure for this method, with which action and error kind":
/// the decider, the linter, `table` and `diff` all ask it. Matching is one
/// array read: a table per method some rule names, plus one for every
/// other method, each filled by walking the rules in order and filling
/// only empty slots, so building costs the sum of what the rules cover.
///
/// Immutable after construction and shared by every copy of a
/// ``RetryDecider``.
public final class CompiledPolicy: Sendable {
    public let policy: Policy
    public let budget: RetryBudget?
    public let cooldown: CooldownGate
    /// The shared circuit breaker, when the policy has one.
    public let breaker: CircuitBreaker?
    /// The Retry-After header names the policy reads, in order.
    @usableFromInline let consultedHeaderNames: [String]
    /// Whether the policy's own timeout budget (no endpoint override) has
    /// a per-attempt timeout or a total deadline.
    let defaultBudgetHasLimits: Bool
    /// The methods some rule names; table `i + 1` is for `namedMethods[i]`,
    /// table 0 for every other method.
    package let namedMethods: [HTTPMethod]
    /// `inputCount` entries per table: the first matching rule, or -1.
    private let tables: [Int32]

    /// Input slots: status codes 100-599, then the transport classes.
    package static let inputCount = StatusPattern.validCodes.count + TransportFailure.allCases.count

    /// A policy compiled for analysis: no budget to spend, its own cooldown.
    public convenience init(policy: Policy) {
        self.init(policy: policy, budget: nil, cooldown: CooldownGate(), breaker: nil)
    }

    init(policy: Policy, budget: RetryBudget?, cooldown: CooldownGate, breaker: CircuitBreaker?) {
        self.policy = policy
        self.budget = budget
        self.cooldown = cooldown
        self.breaker = breaker
        self.consultedHeaderNames = policy.retryAfter.headers.map(\.name)
        self.defaultBudgetHasLimits = policy.timeouts.perAttempt != nil || policy.timeouts.total != nil
        var named: [HTTPMethod] = []
        var seen = Set<HTTPMethod>()
        for rule in policy.rules {
            for method in (rule.methods ?? []).sorted() where seen.insert(method).inserted { named.append(method) }
        }
        namedMethods = named
        let width = Self.inputCount
        var tables = [Int32](repeating: -1, count: width * (named.count + 1))
        var unfilled = [Int](repeating: width, count: named.count + 1)
        for (index, rule) in policy.rules.enumerated() {
            let targets: [Int] =
                rule.methods.map { methods in named.indices.filter { methods.contains(named[$0]) }.map { $0 + 1 } }
                ?? Array(0...named.count)
            let live = targets.filter { unfilled[$0] > 0 }
            if live.isEmpty { continue }
            for slot in Self.inputSlots(of: rule) {
                for table in live where tables[table * width + slot] < 0 {
                    tables[table * width + slot] = Int32(truncatingIfNeeded: index)
                    unfilled[table] -= 1
                }
            }
        }
        self.tables = tables
    }

    // MARK: Slots

    /// The input slot of a status code; `nil` outside 100-599.
    @inline(__always)
    package static func inputSlot(status: Int) -> Int? {
        StatusPattern.validCodes.contains(status) ? status - StatusPattern.validCodes.lowerBound : nil
    }

    @inline(__always)
    package static func inputSlot(transport: TransportFailure) -> Int {
        let index: Int
        switch transport {
        case .timeout: index = 0
        case .connectionLost: index = 1
        case .offline: index = 2
        case .dns: index = 3
        case .tls: index = 4
        case .connectionRefused: index = 5
        case .cancelled: index = 6
        case .invalidURL: index = 7
        case .decoding: index = 8
        case .unknown: index = 9
        }
        return StatusPattern.validCodes.count + index
    }

    /// The input slots a rule's statuses and transports cover.
    package static func inputSlots(of rule: Rule) -> [Int] {
        var result: [Int] = []
        for pattern in rule.statuses {
            let codes = pattern.codes.clamped(to: StatusPattern.validCodes)
            guard !codes.isEmpty else { continue }
            result += codes.map { $0 - StatusPattern.validCodes.lowerBound }
        }
        for transport in rule.transports { result.append(inputSlot(transport: transport)) }
        return result
    }

    /// The table for `method`.
    @inline(__always)
    package func methodSlot(_ method: HTTPMethod) -> Int {
        if namedMethods.isEmpty { return 0 }
        return namedMethods.firstIndex(of: method).map { $0 + 1 } ?? 0
    }

    // MARK: First match

    /// The index of the first rule matching the input in `slot` for the
    /// method in `methodSlot`.
    @inline(__always)
    package func firstMatch(inputSlot slot: Int, methodSlot: Int) -> Int? {
        let index = tables[methodSlot &* Self.inputCount &+ slot]
        return index < 0 ? nil : Int(index)
    }

    /// The index of the first rule matching `outcome` for `method`.
    public func firstMatch(for outcome: AttemptOutcome, method: HTTPMethod) -> Int? {
        let slot: Int
        switch outcome {
        case .response(let status, _):
            guard let statusSlot = Self.inputSlot(status: status) else { return nil }
            slot = statusSlot
        case .transport(let transport):
            slot = Self.inputSlot(transport: transport)
        case .condition(let condition):
            // Declared conditions are few and reported by code, off the
            // status/transport hot path: a scan in rule order is the
            // first match.
            return policy.rules.firstIndex { $0.matches(condition: condition, method: method) }
        }
        return firstMatch(inputSlot: slot, methodSlot: methodSlot(method))
    }

    /// What decides an input, before anything about the attempt (its
    /// number, the budget, the server's delay) is considered.
    public struct Resolution: Hashable, Sendable {
        public enum Source: Hashable, Sendable {
            /// The rule at this index in ``Policy/rules``.
            case rule(Int)
            /// The policy's `default`.
            case defaultRule
            /// A 2xx no rule matches: a success whatever the default says.
            case implicitSuccess
            /// No rule matches and the policy has no default: stop with
            /// `internal_error`.
            case implicitStop
        }

        public var source: Source
        public var action: Rule.Action
        /// The kind a stop reports (and a retry would report had it been
        /// the last attempt); `nil` for a success.
        public var errorKind: SDKError.Kind?
        public var honorsRetryAfter: Bool
        public var refreshCredentials: Bool
        public var location: SourceLocation?

        public var ruleIndex: Int? { if case .rule(let index) = source { index } else { nil } }
    }

    /// Which rule, which action and which error kind decide `outcome` sent
    /// with `method`.
    public func resolution(for outcome: AttemptOutcome, method: HTTPMethod) -> Resolution {
        let source = firstMatch(for: outcome, method: method).map(Resolution.Source.rule)
            ?? unmatchedSource(implicitSuccess: Self.isImplicitSuccess(outcome))
        switch source {
        case .rule(let index):
            let rule = policy.rules[index]
            return Resolution(
                source: source, action: rule.action,
                errorKind: rule.action == .success ? nil : (rule.error ?? .internalError),
                honorsRetryAfter: rule.honorRetryAfter ?? policy.retryAfter.honor,
                refreshCredentials: rule.refreshCredentials, location: rule.location)
        case .implicitSuccess:
            return Resolution(
                source: source, action: .success, errorKind: nil, honorsRetryAfter: false,
                refreshCredentials: false, location: nil)
        case .implicitStop:
            return Resolution(
                source: source, action: .stop, errorKind: .internalError,
                honorsRetryAfter: policy.retryAfter.honor, refreshCredentials: false, location: nil)
        case .defaultRule:
            let defaultRule = policy.defaultRule!
            return Resolution(
                source: source, action: defaultRule.action,
                errorKind: defaultRule.action == .success ? nil : defaultRule.error,
                honorsRetryAfter: policy.retryAfter.honor, refreshCredentials: false, location: defaultRule.location)
        }
    }

    /// What decides the input in `slot` for the method in `methodSlot`:
    /// ``resolution(for:method:)``'s source, without building the rest of
    /// the resolution.
    package func source(inputSlot slot: Int, methodSlot: Int) -> Resolution.Source {
        if let index = firstMatch(inputSlot: slot, methodSlot: methodSlot) { return .rule(index) }
        let status = slot + StatusPattern.validCodes.lowerBound
        return unmatchedSource(implicitSuccess: slot < StatusPattern.validCodes.count && Self.isImplicitSuccess(status: status))
    }

    /// What decides an input no rule matches: a 2xx is a success
    /// whatever the default says; anything else gets the default, or
    /// stops when there is none.
    private func unmatchedSource(implicitSuccess: Bool) -> Resolution.Source {
        if implicitSuccess { return .implicitSuccess }
        return policy.defaultRule == nil ? .implicitStop : .defaultRule
    }

    // MARK: Implicit success

    /// Whether `status` is a success when no rule matches it: a 2xx.
    @inline(__always)
    package static func isImplicitSuccess(status: Int) -> Bool { (200...299).contains(status) }

    /// Whether `outcome` is a success when no rule matches it: a 2xx
    /// response.
    @inline(__always)
    package static func isImplicitSuccess(_ outcome: AttemptOutcome) -> Bool {
        if case .response(let status, _) = outcome { return isImplicitSuccess(status: status) }
        return false
    }

    /// Every rule that decides at least one input for one of `methods`.
    public func reachableRules(for methods: [HTTPMethod]) -> Set<Int> {
        var result = Set<Int>()
        for table in Set(methods.map(methodSlot)) {
            for slot in 0..<Self.inputCount {
                if let index = firstMatch(inputSlot: slot, methodSlot: table) { result.insert(index) }
            }
        }
        return result
    }
}
