/// A policy compiled for deciding: the policy itself, the shared budget and
/// cooldown, and lookup tables that make rule matching one array read.
///
/// Immutable after construction and shared by every copy of a
/// ``RetryDecider``.
@usableFromInline
final class CompiledPolicy: Sendable {
    @usableFromInline let policy: Policy
    @usableFromInline let budget: RetryBudget?
    @usableFromInline let cooldown: CooldownGate
    /// The Retry-After header names the policy reads, in order.
    @usableFromInline let consultedHeaderNames: [String]
    /// Whether the policy's own timeout budget (no endpoint override) has
    /// a per-attempt timeout or a total deadline.
    let defaultBudgetHasLimits: Bool
    /// First matching rule per status code (index `status - 100`), or -1.
    /// Only built when no rule is method-specific.
    let statusTable: [Int16]?
    /// First matching rule per transport failure, or -1.
    let transportTable: [Int16]?

    init(policy: Policy, budget: RetryBudget?, cooldown: CooldownGate) {
        self.policy = policy
        self.budget = budget
        self.cooldown = cooldown
        self.consultedHeaderNames = policy.retryAfter.headers.map(\.name)
        self.defaultBudgetHasLimits = policy.timeouts.perAttempt != nil || policy.timeouts.total != nil
        if policy.rules.count < Int(Int16.max), policy.rules.allSatisfy({ $0.methods == nil }) {
            var statuses = [Int16](repeating: -1, count: StatusPattern.validCodes.count)
            var transports = [Int16](repeating: -1, count: TransportFailure.allCases.count)
            for (index, rule) in policy.rules.enumerated() {
                for pattern in rule.statuses {
                    let codes = pattern.codes.clamped(to: StatusPattern.validCodes)
                    for code in codes where statuses[code - 100] < 0 { statuses[code - 100] = Int16(index) }
                }
                for transport in rule.transports {
                    let slot = RetryDecider.slot(of: transport)
                    if transports[slot] < 0 { transports[slot] = Int16(index) }
                }
            }
            statusTable = statuses
            transportTable = transports
        } else {
            statusTable = nil
            transportTable = nil
        }
    }
}
