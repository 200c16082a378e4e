import RetryPolicyCore

extension PolicyBehaviour {
    /// A policy's circuit breaker has no counterpart in a retry policy of
    /// `target`: it is not exported, and the export says so.
    func breakerWarning(target: String, instead: String) -> InteropWarning? {
        notExported(
            "breaker", present: policy.breaker != nil,
            "\(target) has no circuit breaker in a retry policy (\(instead)); not exported")
    }

    /// A policy's hedging has no counterpart in what is exported for
    /// `target`: the copies run one after another there, and the export
    /// says so.
    func hedgingWarning(target: String, instead: String) -> InteropWarning? {
        notExported(
            "hedging", present: policy.hedging != nil,
            "\(target) cannot hedge this retry policy (\(instead)); not exported: there, attempts run one after another")
    }

    /// A policy's client-side rate limit (AWS adaptive mode) has no
    /// counterpart in `target`: attempts there are not paced, and the
    /// export says so.
    func rateLimitWarning(target: String) -> InteropWarning? {
        notExported(
            "rate_limit", present: policy.rateLimit != nil,
            "\(target) has no client-side rate limit (AWS adaptive mode); not exported: there, attempts are not paced after throttling")
    }

    /// The warning, at the policy's `section`, that a section it has is
    /// not exported; `nil` when the policy does not have it.
    private func notExported(_ section: String, present: Bool, _ message: String) -> InteropWarning? {
        guard present else { return nil }
        return InteropWarning(feature: section, location: location(section), message: message)
    }
}
