import RetryPolicyCore

/// One request as a recording shows it: when it started, what it asked for,
/// and what the upstream answered to each attempt the recording saw (one,
/// or several when a proxy such as nginx retried it).
///
/// Only what replay uses is kept: the method, the endpoint (a path without
/// its query, identifiers collapsed), the outcomes and the headers a
/// policy's `retry_after` reads. Cookies, authorization, other headers and
/// bodies are dropped by the readers and never reach this type.
public struct RecordedRequest: Hashable, Sendable {
    /// When the first attempt started.
    public var start: Timestamp
    public var method: HTTPMethod
    public var endpoint: String
    /// The attempts the recording shows, in order; never empty.
    public var attempts: [RecordedAttempt]
    /// Attempts the recording counts but does not describe (Envoy's
    /// `%UPSTREAM_REQUEST_ATTEMPT_COUNT%` beyond the one logged).
    public var undescribedAttempts: Int
    /// Where the record was read, for warnings.
    public var location: SourceLocation

    public init(
        start: Timestamp, method: HTTPMethod, endpoint: String, attempts: [RecordedAttempt],
        undescribedAttempts: Int = 0, location: SourceLocation
    ) {
        precondition(!attempts.isEmpty, "a recorded request has at least one attempt")
        self.start = start
        self.method = method
        self.endpoint = endpoint
        self.attempts = attempts
        self.undescribedAttempts = undescribedAttempts
        self.location = location
    }

    /// Upstream attempts the recording saw for this request.
    public var recordedAttemptCount: Int {
        let sum = attempts.count.addingReportingOverflow(max(undescribedAttempts, 0))
        return sum.overflow ? Int.max : sum.partialValue
    }

    /// The most upstream attempts one record may show: more is not a
    /// retrying proxy but a broken or hostile line, skipped with a warning.
    public static let maximumAttempts = 100
    /// The longest an attempt may take: longer (or negative) is skipped
    /// with a warning.
    public static let maximumAttemptDuration = Duration.seconds(86_400)

    /// Why the record is out of the ranges replay accepts, or `nil`.
    var rangeProblem: String? {
        if undescribedAttempts < 0 || recordedAttemptCount > Self.maximumAttempts {
            return "expected at most \(Self.maximumAttempts) upstream attempts for one request, found \(recordedAttemptCount); the line is skipped"
        }
        for attempt in attempts {
            guard let duration = attempt.duration else { continue }
            if duration < .zero || duration > Self.maximumAttemptDuration {
                return "expected an attempt's duration between 0 and \(Self.maximumAttemptDuration.formattedForHumans), found \(duration < .zero ? "a negative one" : "a longer one"); the line is skipped"
            }
        }
        return nil
    }
}

/// One attempt of a recorded request: its outcome (with only the retry
/// headers kept) and how long it took, when the recording says.
public struct RecordedAttempt: Hashable, Sendable {
    public var outcome: AttemptOutcome
    public var duration: Duration?

    public init(outcome: AttemptOutcome, duration: Duration?) {
        self.outcome = outcome
        self.duration = duration
    }
}
