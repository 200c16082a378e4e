import RetryPolicyCore

/// How a request of simulated traffic ended.
public enum TrafficResult: Sendable {
    case succeeded
    /// `rejectedByCooldown`: a cooldown refused an attempt, so the request
    /// ended without reaching the server again.
    case failed(RetryFailure, rejectedByCooldown: Bool)
}
