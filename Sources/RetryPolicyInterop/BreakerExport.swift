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

extension PolicyBehaviour {
    /// A policy's hedging has no counterpart in what is exported for
    /// `target`: the copies run one after another there, and the export
    /// says so.
    func hedgingWarning(target: String, instead: String) -> InteropWarning? {
        guard policy.hedging != nil else { return nil }
        return InteropWarning(
            feature: "hedging", location: location("hedging"),
            message: "\(target) cannot hedge this retry policy (\(instead)); not exported: there, attempts run one after another")
    }
}
