/// Why a request waits before its next attempt.
public enum WaitReason: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The policy's backoff chose the delay.
    case backoff
    /// The server's `Retry-After` (or similar) header chose it.
    case server
    /// A cooldown started by an earlier response holds the request back.
    case cooldown
    /// The adaptive rate limiter (`rate_limit`) paces attempts after the
    /// service throttled.
    case rateLimit = "rate_limit"

    public var description: String { rawValue }
}
