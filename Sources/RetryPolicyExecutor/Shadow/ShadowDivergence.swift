import RetryPolicyCore

/// Where a shadow policy would have decided differently from the live one,
/// on the same attempt.
public struct ShadowDivergence: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The live policy stopped; the candidate would have retried. What
        /// that retry would have met was never observed.
        case wouldRetry = "would_retry"
        /// The live policy retried; the candidate would have stopped.
        case wouldStop = "would_stop"
        /// Both retry; the candidate's delay would have been longer (by
        /// ``delayDifference``, compared by the middle of each delay's
        /// range, since jitter draws differ).
        case waitsLonger = "waits_longer"
        /// Both retry; the candidate's delay would have been shorter.
        case waitsShorter = "waits_shorter"
        /// The candidate's retry budget had no tokens for the retry.
        case rejectedByBudget = "rejected_by_budget"
        /// The candidate's circuit breaker would have refused the attempt.
        case rejectedByBreaker = "rejected_by_breaker"
        /// The candidate's cooldown would have refused the attempt.
        case rejectedByCooldown = "rejected_by_cooldown"
        /// The candidate's cooldown would have held the attempt back.
        case heldByCooldown = "held_by_cooldown"
        /// Both stop, with different errors.
        case differentError = "different_error"
        /// The candidate would have accepted as a success what the live
        /// policy retried or failed on.
        case acceptedAsSuccess = "accepted_as_success"
        /// The live policy accepted as a success what the candidate would
        /// have retried or failed on.
        case rejectedSuccess = "rejected_success"
    }

    public var kind: Kind
    /// The live policy's and the candidate's names.
    public var livePolicy: String
    public var candidatePolicy: String
    public var endpoint: String?
    /// The attempt after which (or before which, for an admission) the
    /// decisions differ.
    public var attempt: Int
    /// What the live policy decided after that attempt, when it decided.
    public var live: Decision?
    /// What the candidate would have decided; `nil` when it refused the
    /// attempt before it was sent.
    public var candidate: Decision?
    /// The candidate's delay minus the live one, for ``Kind/waitsLonger``,
    /// ``Kind/waitsShorter`` and ``Kind/heldByCooldown``.
    public var delayDifference: Duration?
    /// The candidate's stop reason, when it would have stopped.
    public var candidateStopReason: StopReason?

    package init(
        kind: Kind, livePolicy: String, candidatePolicy: String, endpoint: String?, attempt: Int, live: Decision?,
        candidate: Decision?, delayDifference: Duration? = nil, candidateStopReason: StopReason? = nil
    ) {
        self.kind = kind
        self.livePolicy = livePolicy
        self.candidatePolicy = candidatePolicy
        self.endpoint = endpoint
        self.attempt = attempt
        self.live = live
        self.candidate = candidate
        self.delayDifference = delayDifference
        self.candidateStopReason = candidateStopReason
    }
}
