import RetryPolicyCore

/// What a check may look at besides the policy itself.
public struct LintContext: Sendable {
    /// The file the policy was loaded from, for findings on policies that
    /// carry no location.
    public var file: String
    /// The policies named in `parity`, loaded by the caller and keyed by the
    /// reference as written. A reference that failed to load is absent (the
    /// caller reports why).
    public var parityPolicies: [String: Policy]
    /// Where the `parity` key is written, when the caller knows it.
    public var parityLocation: SourceLocation?
    /// `PolicyDiff.compare(policy, parityPolicies[reference])` for the
    /// references whose comparison the caller already has (a run that
    /// compared the pair from the other side); the rest are compared by
    /// the check.
    public var parityComparisons: [String: PolicyComparison]
    /// Policies compiled for the checks (``compiled(_:)``), shared by the
    /// rules that run with this context instead of compiled by each.
    let compiledPolicies = CompiledPolicies()

    public init(
        file: String, parityPolicies: [String: Policy] = [:], parityLocation: SourceLocation? = nil,
        parityComparisons: [String: PolicyComparison] = [:]
    ) {
        self.file = file
        self.parityPolicies = parityPolicies
        self.parityLocation = parityLocation
        self.parityComparisons = parityComparisons
    }

    /// `CompiledPolicy(policy: policy)`, compiled once for all the checks
    /// of this context.
    func compiled(_ policy: Policy) -> CompiledPolicy { compiledPolicies.compiled(policy) }

    /// `location`, else the policy's, else the top of the file.
    func place(_ location: SourceLocation?, _ policy: Policy) -> SourceLocation {
        location ?? policy.location ?? SourceLocation(file: file, line: 1, column: 1)
    }

    /// The first of `keys` written in the policy (so that an inline
    /// suppression on that line silences the finding), else `fallback`.
    func place(key keys: String..., or fallback: SourceLocation?, _ policy: Policy) -> SourceLocation {
        for key in keys { if let location = policy.keyLocations[key] { return location } }
        return place(fallback, policy)
    }
}

/// The policies the checks of one context compiled, each with the policy
/// it was compiled from: a policy equal to one already compiled reuses it.
final class CompiledPolicies: Sendable {
    private let entries = LockedValue<[(policy: Policy, compiled: CompiledPolicy)]>([])

    func compiled(_ policy: Policy) -> CompiledPolicy {
        if let found = entries.withLock({ $0.first { $0.policy == policy }?.compiled }) { return found }
        let made = CompiledPolicy(policy: policy)
        entries.withLock { $0.append((policy, made)) }
        return made
    }
}
