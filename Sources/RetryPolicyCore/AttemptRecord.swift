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
    ///
    /// Made when read: a request that retries and succeeds never turns its
    /// errors into text.
    public var errorDescription: String? {
        get {
            switch error {
            case .absent: nil
            case .text(let text): text
            case .thrown(let thrown): String(describing: thrown)
            }
        }
        set { error = newValue.map(ErrorText.text) ?? .absent }
    }
    /// The error the operation threw, when the record was made from one.
    public var thrownError: (any Error)? {
        if case .thrown(let thrown) = error { thrown } else { nil }
    }

    private var error: ErrorText

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
        self.error = errorDescription.map(ErrorText.text) ?? .absent
    }

    /// A record of an attempt that threw `thrown`; its `errorDescription`
    /// is `thrown`'s text.
    public init(
        number: Int,
        outcome: AttemptOutcome,
        startedAt: Duration,
        duration: Duration,
        decision: Decision,
        thrown: any Error
    ) {
        self.number = number
        self.outcome = outcome
        self.startedAt = startedAt
        self.duration = duration
        self.decision = decision
        self.error = .thrown(thrown)
    }

    /// Records are equal when everything a reader sees is, the error's
    /// text included.
    public static func == (lhs: AttemptRecord, rhs: AttemptRecord) -> Bool {
        lhs.number == rhs.number && lhs.outcome == rhs.outcome && lhs.startedAt == rhs.startedAt
            && lhs.duration == rhs.duration && lhs.decision == rhs.decision
            && lhs.errorDescription == rhs.errorDescription
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(number)
        hasher.combine(outcome)
        hasher.combine(startedAt)
        hasher.combine(duration)
        hasher.combine(decision)
        hasher.combine(errorDescription)
    }

    /// An attempt's error: none, text given, or the error itself, whose
    /// text is made only when someone reads it.
    private enum ErrorText: Sendable {
        case absent
        case text(String)
        case thrown(any Error)
    }
}
