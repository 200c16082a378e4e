import RetryPolicyCore

extension PolicyBehaviour {
    /// A policy's circuit breaker has no counterpart in a retry policy of
    /// `target`: it is not exported, and the export says so.
    func breakerWarning(target: String, instead: String) -> InteropWarning? {
        guard policy.breaker != nil else { return nil }
        return InteropWarning(
            feature: "breaker", location: location("breaker"),
            message: "\(target) has no circuit breaker in a retry policy (\(instead)); not exported")
    }
}
