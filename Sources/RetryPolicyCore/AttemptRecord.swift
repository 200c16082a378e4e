/// One attempt of a request, as the executor saw and judged it.
///
/// The history of a failed request is a list of these, so a caller (or a
/// `--verbose` timeline) can show exactly which responses led to which
/// decisions and how long each wait was.
public struct AttemptRecord: Hashable, Sendable {
    /// 1 for the first try.
    public var number: Int
    public var outcome: AttemptOutcome
    /// When the attempt started, measured from the start of the request.
    public var startedAt: Duration
    public var duration: Duration
    /// What the policy decided after the attempt.
    public var decision: Decision
    /// The text of the error the operation threw, if it threw.
    public var errorDescription: String?

    public init(
        number: Int,
        outcome: AttemptOutcome,
        startedAt: Duration,
        duration: Duration,
        decision: Decision,
        errorDescription: String? = nil
    ) {
        self.number = number
        self.outcome = outcome
        self.startedAt = startedAt
        self.duration = duration
        self.decision = decision
        self.errorDescription = errorDescription
    }
}
