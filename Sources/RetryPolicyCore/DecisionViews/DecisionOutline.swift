/// A decision reduced to what a person compares: the action, the error kind
/// and reason, and the range jitter can draw the delay from (not the draw
/// itself), plus the rule that decided.
public struct DecisionOutline: Hashable, Sendable, CustomStringConvertible {
    /// What two decisions must share to count as the same; the deciding
    /// rule's position is left out because equal policies in two files have
    /// their rules on different lines.
    public struct Signature: Hashable, Sendable, CustomStringConvertible {
        public var action: Rule.Action
        public var error: SDKError.Kind?
        public var reason: StopReason?
        public var delay: ClosedRange<Duration>?

        /// `DecisionText/summary(_:)`.
        public var description: String { DecisionText.summary(self) }
    }

    /// What the decision does: a retry rule's attempt can still stop (out
    /// of attempts, budget or time), so this is not the deciding rule's
    /// action.
    public var action: Rule.Action
    /// The kind the attempt's outcome maps to: the error a stop reports, or
    /// the one a retry would report if it were the last attempt. `nil` for
    /// a success.
    public var error: SDKError.Kind?
    public var reason: StopReason?
    /// The bounds jitter can produce; equal when nothing is random.
    public var delay: ClosedRange<Duration>?
    /// Whether the delay is the server's (`Retry-After`).
    public var serverDirected: Bool
    /// The rule (or default) that decided; `nil` for an implicit 2xx
    /// success.
    public var rule: SourceLocation?
    /// The index of the rule that decided in `Policy.rules`.
    public var ruleIndex: Int?

    public init(_ decision: Decision, policy: Policy) {
        ruleIndex = decision.ruleIndex
        rule = decision.ruleLocation
        serverDirected = decision.serverDirected
        switch decision.action {
        case .success:
            action = .success
            error = nil
            reason = nil
            delay = nil
        case .retry(let chosen):
            action = .retry
            error = decision.errorKind
            reason = nil
            delay = decision.delayBounds ?? chosen...chosen
        case .stop(_, let stopReason):
            action = .stop
            error = decision.errorKind
            reason = stopReason
            delay = nil
        }
    }

    public var signature: Signature { Signature(action: action, error: error, reason: reason, delay: delay) }

    /// `retry after 0ms-1s [status_5xx]`, `stop: status_429 (not_retryable)`,
    /// `success` (`DecisionText/summary(_:)`).
    public var description: String { DecisionText.summary(signature) }
}

extension RetryDecider {
    /// Decides `input` and reduces the decision to its outline. The random
    /// draw does not matter to an outline, so a fixed generator keeps it
    /// deterministic.
    package func outline(_ input: DecisionInput) -> DecisionOutline {
        var generator = SplitMix64(seed: 0)
        return DecisionOutline(decide(input, using: &generator), policy: policy)
    }
}
