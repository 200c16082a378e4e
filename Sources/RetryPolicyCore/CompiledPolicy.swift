/// A policy compiled for deciding: the policy itself and the first-match
/// resolution of every input. The rules only: what requests share (the
/// budget, cooldown and breaker) is a ``SharedRetryState``.
///
/// This is the one place that answers "which rule decides this status or
/// transport failure for this method, with which action and error kind":
/// the decider, the linter, `table` and `diff` all ask it. Matching is one
/// array read: a table per method some rule names, plus one for every
/// other method, each filled by walking the rules in order and filling
/// only empty slots, so building costs the sum of what the rules cover.
/// A slot holds the index of its resolution, worked out once per rule
/// (and once for the default and the implicit 2xx success), so deciding
/// reads the action, error kind and flags without copying a rule.
///
/// Immutable, and shared by every ``RetryDecider`` of the policy whatever
/// state each decides on.
public final class CompiledPolicy: Sendable {
    public let policy: Policy
    /// The Retry-After header names the policy reads, in order.
    @usableFromInline let consultedHeaderNames: [String]
    /// Whether the policy's own timeout budget (no endpoint override) has
    /// a per-attempt timeout or a total deadline.
    let defaultBudgetHasLimits: Bool
    /// The methods some rule names; table `i + 1` is for `namedMethods[i]`,
    /// table 0 for every other method.
    package let namedMethods: [HTTPMethod]
    /// `inputCount` entries per table, each an index into `resolutions`:
    /// below `policy.rules.count` the first matching rule, else
    /// `unmatchedIndex` or `implicitSuccessIndex`.
    private let tables: [Int32]
    /// What each rule decides (index `i` for `policy.rules[i]`), then what
    /// an unmatched input gets (the default, or the implicit stop), then
    /// the implicit success of an unmatched 2xx.
    let resolutions: [Resolution]
    /// The number of rules: table entries below it are rule indices.
    let ruleCount: Int
    /// `inputCount`, kept here so that a lookup reads no global.
    let width: Int

    // What a decision reads of the policy besides its rules, in the form
    // it is read: no copy of a nested struct, no hashing.

    /// ``Policy/attempts``.
    let attempts: Int
    /// ``Policy/idempotency``'s retryable methods, in an array: a handful
    /// of short strings compare faster than they hash.
    let retryableMethods: [HTTPMethod]
    /// ``Idempotency/honorIdempotentRequests``.
    let honorsIdempotentRequests: Bool
    /// The total deadline of a request with no endpoint override, and
    /// whether any endpoint has an override.
    let defaultTotal: Duration?
    let defaultPerAttempt: Duration?
    let hasEndpointOverrides: Bool
    /// ``Policy/retryAfter``'s cap, what happens above it, how the delay
    /// combines with the backoff, and whether cooldowns are kept.
    let retryAfterCap: Duration?
    let aboveCap: RetryAfterPolicy.AboveCap
    let combine: RetryAfterPolicy.Combine
    let keepsCooldowns: Bool
    /// Whether the budget counts requests (a ratio budget).
    @usableFromInline let countsRequests: Bool
    /// The backoff's un-jittered delay before each retry the policy
    /// allows (`Backoff.base(forRetry:)`, retry 1 first), computed once;
    /// empty for a backoff defined in code, whose delays are the caller's
    /// to compute.
    let baseDelays: [Duration]
    /// The delay before each retry when the backoff draws nothing (no
    /// jitter), as `Backoff.delay(forRetry:previousDelay:base:using:)`
    /// gives it, computed once; empty when it draws, or for a backoff
    /// defined in code.
    let unjitteredDelays: [Duration]

    /// Input slots: status codes 100-599, then the transport classes,
    /// then the gRPC statuses 0-16.
    package static let inputCount =
        StatusPattern.validCodes.count + TransportFailure.allCases.count + GRPCStatusCode.allCases.count

    /// The first gRPC slot (``GRPCStatusCode/ok``).
    static let grpcSlotBase = StatusPattern.validCodes.count + TransportFailure.allCases.count

    public init(policy: Policy) {
        self.policy = policy
        self.consultedHeaderNames = policy.retryAfter.headers.map(\.name)
        self.defaultBudgetHasLimits = policy.timeouts.perAttempt != nil || policy.timeouts.total != nil
        var named: [HTTPMethod] = []
        var seen = Set<HTTPMethod>()
        for rule in policy.rules {
            for method in (rule.methods ?? []).sorted() where seen.insert(method).inserted { named.append(method) }
        }
        namedMethods = named
        let width = Self.inputCount
        self.width = width
        self.ruleCount = policy.rules.count
        self.attempts = policy.attempts
        self.retryableMethods = policy.idempotency.retryableMethods.sorted()
        self.honorsIdempotentRequests = policy.idempotency.honorIdempotentRequests
        self.defaultTotal = policy.timeouts.total
        self.defaultPerAttempt = policy.timeouts.perAttempt
        self.hasEndpointOverrides = !policy.endpoints.isEmpty
        self.retryAfterCap = policy.retryAfter.cap
        self.aboveCap = policy.retryAfter.aboveCap
        self.combine = policy.retryAfter.combine
        self.keepsCooldowns = policy.retryAfter.cooldown != .off
        self.countsRequests = policy.budget?.countsRequests ?? false
        if case .custom = policy.backoff.growth {
            self.baseDelays = []
        } else {
            // Bounded: a policy file allows at most a few hundred attempts.
            self.baseDelays = (0..<Swift.min(Swift.max(policy.attempts - 1, 0), 1_024)).map {
                policy.backoff.base(forRetry: $0 + 1)
            }
        }
        if case .none = policy.backoff.jitter {
            // Nothing is drawn without jitter; the generator is never asked.
            var generator = SystemRandomNumberGenerator()
            let bases = baseDelays
            self.unjitteredDelays = bases.indices.map { index in
                policy.backoff.delay(forRetry: index + 1, previousDelay: nil, base: bases[index], using: &generator)
            }
        } else {
            self.unjitteredDelays = []
        }
        self.resolutions = Self.makeResolutions(of: policy)
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
        // Slots no rule covers: a 2xx or a gRPC OK is an implicit success,
        // anything else gets the default.
        let unmatched = Int32(truncatingIfNeeded: policy.rules.count)
        let grpcOK = Self.inputSlot(grpc: .ok)
        for table in 0...named.count {
            for slot in 0..<width where tables[table * width + slot] < 0 {
                let status = slot + StatusPattern.validCodes.lowerBound
                let success =
                    (slot < StatusPattern.validCodes.count && Self.isImplicitSuccess(status: status)) || slot == grpcOK
                tables[table * width + slot] = success ? unmatched + 1 : unmatched
            }
        }
        self.tables = tables
    }

    /// The rule a resolution index stands for, if it stands for one.
    @inline(__always)
    func ruleIndex(resolutionIndex index: Int) -> Int? { index < ruleCount ? index : nil }

    /// Whether a failed request sent with `method` may be sent again:
    /// `Idempotency/allowsRetry(method:markedIdempotent:)`.
    @inline(__always)
    func allowsRetry(method: HTTPMethod, markedIdempotent: Bool) -> Bool {
        for candidate in retryableMethods where candidate == method { return true }
        return markedIdempotent && honorsIdempotentRequests
    }

    /// Index in `resolutions` of what an input no rule matches gets: the
    /// default, or the implicit stop.
    @inline(__always)
    var unmatchedIndex: Int { ruleCount }

    /// Index in `resolutions` of an unmatched 2xx's implicit success.
    @inline(__always)
    var implicitSuccessIndex: Int { ruleCount &+ 1 }

    /// The resolution of every rule, then the unmatched one, then the
    /// implicit success (see `resolutions`).
    private static func makeResolutions(of policy: Policy) -> [Resolution] {
        var result: [Resolution] = []
        result.reserveCapacity(policy.rules.count + 2)
        for (index, rule) in policy.rules.enumerated() {
            result.append(
                Resolution(
                    source: .rule(index), action: rule.action,
                    errorKind: rule.action == .success ? nil : (rule.error ?? .internalError),
                    honorsRetryAfter: rule.honorRetryAfter ?? policy.retryAfter.honor,
                    refreshCredentials: rule.refreshCredentials, location: rule.location))
        }
        if let defaultRule = policy.defaultRule {
            result.append(
                Resolution(
                    source: .defaultRule, action: defaultRule.action,
                    errorKind: defaultRule.action == .success ? nil : defaultRule.error,
                    honorsRetryAfter: policy.retryAfter.honor, refreshCredentials: false,
                    location: defaultRule.location))
        } else {
            result.append(
                Resolution(
                    source: .implicitStop, action: .stop, errorKind: .internalError,
                    honorsRetryAfter: policy.retryAfter.honor, refreshCredentials: false, location: nil))
        }
        result.append(
            Resolution(
                source: .implicitSuccess, action: .success, errorKind: nil, honorsRetryAfter: false,
                refreshCredentials: false, location: nil))
        return result
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

    @inline(__always)
    package static func inputSlot(grpc status: GRPCStatusCode) -> Int { grpcSlotBase &+ status.rawValue }

    /// The input slots a rule's statuses, transports and gRPC statuses
    /// cover.
    package static func inputSlots(of rule: Rule) -> [Int] {
        var result: [Int] = []
        for pattern in rule.statuses {
            let codes = pattern.codes.clamped(to: StatusPattern.validCodes)
            guard !codes.isEmpty else { continue }
            result += codes.map { $0 - StatusPattern.validCodes.lowerBound }
        }
        for transport in rule.transports { result.append(inputSlot(transport: transport)) }
        for status in rule.grpc { result.append(inputSlot(grpc: status)) }
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
        let index = resolutionIndex(inputSlot: slot, methodSlot: methodSlot)
        return index < ruleCount ? index : nil
    }

    /// The index of the first rule matching `outcome` for `method`.
    package func firstMatch(for outcome: AttemptOutcome, method: HTTPMethod) -> Int? {
        let index = resolutionIndex(for: outcome, method: method)
        return index < ruleCount ? index : nil
    }

    /// The delay before retry `k` and the range it was drawn from, as
    /// `Backoff.delayAndBounds(forRetry:previousDelay:using:)` gives them,
    /// with the base delay from `baseDelays`.
    @inline(__always)
    func backoffDelayAndBounds<G: RandomNumberGenerator>(
        forRetry k: Int, previousDelay: Duration?, using generator: inout G
    ) -> (delay: Duration, bounds: ClosedRange<Duration>) {
        policy.backoff.delayAndBounds(forRetry: k, previousDelay: previousDelay, base: baseDelay(forRetry: k), using: &generator)
    }

    /// The delay alone (see `Backoff.delay(forRetry:previousDelay:base:using:)`).
    func backoffDelay<G: RandomNumberGenerator>(
        forRetry k: Int, previousDelay: Duration?, using generator: inout G
    ) -> Duration {
        if k >= 1 && k <= unjitteredDelays.count { return unjitteredDelays[k &- 1] }
        return policy.backoff.delay(
            forRetry: k, previousDelay: previousDelay, base: baseDelay(forRetry: k), using: &generator)
    }

    /// The base delay of retry `k`, computed once; `nil` past the policy's
    /// attempts.
    @inline(__always)
    private func baseDelay(forRetry k: Int) -> Duration? {
        k >= 1 && k <= baseDelays.count ? baseDelays[k &- 1] : nil
    }

    /// The index in `resolutions` of what decides the input in `slot` for
    /// the method in `methodSlot`.
    @inline(__always)
    func resolutionIndex(inputSlot slot: Int, methodSlot: Int) -> Int {
        Int(truncatingIfNeeded: tables[methodSlot &* width &+ slot])
    }

    /// The index in `resolutions` of what decides a response with
    /// `status` for the method in `methodSlot`; a status outside 100-599
    /// matches no rule and is no 2xx.
    @inline(__always)
    func resolutionIndex(forStatus status: Int, methodSlot: Int) -> Int {
        // 100-599, as `inputSlot(status:)` without the global range.
        let statusSlot = status &- 100
        guard UInt(bitPattern: statusSlot) < 500 else { return unmatchedIndex }
        return resolutionIndex(inputSlot: statusSlot, methodSlot: methodSlot)
    }

    /// The index in `resolutions` of what decides `outcome` for `method`;
    /// a status outside 100-599 matches no rule and is no 2xx.
    @inline(__always)
    func resolutionIndex(for outcome: AttemptOutcome, method: HTTPMethod) -> Int {
        let slot: Int
        switch outcome {
        case .response(let status, _):
            return resolutionIndex(forStatus: status, methodSlot: methodSlot(method))
        case .transport(let transport):
            slot = Self.inputSlot(transport: transport)
        case .grpc(let status, _):
            slot = Self.inputSlot(grpc: status)
        case .condition(let condition):
            // Declared conditions are few and reported by code, off the
            // status/transport hot path: a scan in rule order is the
            // first match.
            // No rule for a condition makes it unmatched: no 2xx, so the
            // default decides.
            return policy.rules.firstIndex { $0.matches(condition: condition, method: method) } ?? unmatchedIndex
        }
        return resolutionIndex(inputSlot: slot, methodSlot: methodSlot(method))
    }

    /// What decides an input, before anything about the attempt (its
    /// number, the budget, the server's delay) is considered.
    package struct Resolution: Hashable, Sendable {
        package enum Source: Hashable, Sendable {
            /// The rule at this index in ``Policy/rules``.
            case rule(Int)
            /// The policy's `default`.
            case defaultRule
            /// A 2xx or gRPC OK no rule matches: a success whatever the
            /// default says.
            case implicitSuccess
            /// No rule matches and the policy has no default: stop with
            /// `internal_error`.
            case implicitStop
        }

        package var source: Source
        package var action: Rule.Action
        /// The kind a stop reports (and a retry would report had it been
        /// the last attempt); `nil` for a success.
        package var errorKind: SDKError.Kind?
        package var honorsRetryAfter: Bool
        package var refreshCredentials: Bool
        package var location: SourceLocation?

        package var ruleIndex: Int? { if case .rule(let index) = source { index } else { nil } }
    }

    /// Which rule, which action and which error kind decide `outcome` sent
    /// with `method`.
    package func resolution(for outcome: AttemptOutcome, method: HTTPMethod) -> Resolution {
        resolutions[resolutionIndex(for: outcome, method: method)]
    }

    /// What decides the input in `slot` for the method in `methodSlot`:
    /// `resolution(for:method:)`'s source, without the rest of the
    /// resolution.
    package func source(inputSlot slot: Int, methodSlot: Int) -> Resolution.Source {
        resolutions[resolutionIndex(inputSlot: slot, methodSlot: methodSlot)].source
    }

    // MARK: Implicit success

    /// Whether `status` is a success when no rule matches it: a 2xx.
    @inline(__always)
    package static func isImplicitSuccess(status: Int) -> Bool { (200...299).contains(status) }

    /// Whether `outcome` is a success when no rule matches it: a 2xx
    /// response or a gRPC OK.
    @inline(__always)
    package static func isImplicitSuccess(_ outcome: AttemptOutcome) -> Bool {
        switch outcome {
        case .response(let status, _): isImplicitSuccess(status: status)
        case .grpc(let status, _): status == .ok
        case .transport, .condition: false
        }
    }

    /// Every rule that decides at least one input for one of `methods`.
    package func reachableRules(for methods: [HTTPMethod]) -> Set<Int> {
        var result = Set<Int>()
        for table in Set(methods.map(methodSlot)) {
            for slot in 0..<Self.inputCount {
                if let index = firstMatch(inputSlot: slot, methodSlot: table) { result.insert(index) }
            }
        }
        return result
    }
}
