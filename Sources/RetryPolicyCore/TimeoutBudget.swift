/// How long one attempt, and the whole request with its retries, may take.
///
/// Seed behaviour: a mobile SDK gives each placement its own budget
/// (default 10 s), so policies carry a default budget plus per-endpoint
/// overrides.
public struct TimeoutBudget: Hashable, Sendable {
    /// Limit for one attempt; the executor cancels the attempt and counts it
    /// as a `timeout` transport failure.
    public var perAttempt: Duration?
    /// Limit for the request including every retry and wait: no retry is
    /// scheduled whose delay would end at or past it.
    public var total: Duration?
    public var location: SourceLocation?

    public init(perAttempt: Duration? = nil, total: Duration? = nil, location: SourceLocation? = nil) {
        self.perAttempt = perAttempt
        self.total = total
        self.location = location
    }

    /// Fields of `override` win; unset fields fall back to `self`.
    package func overridden(by override: TimeoutBudget) -> TimeoutBudget {
        TimeoutBudget(
            perAttempt: override.perAttempt ?? perAttempt,
            total: override.total ?? total,
            location: override.location ?? location
        )
    }
}
