import RetryPolicyCore

/// An attempt the policy does not treat as a success, as the `override` of
/// `RetryExecutor/run(_:classify:override:returningLastResponse:isolation:operation:)`
/// sees it.
public struct FailedAttempt<Failure: Error> {
    /// 1 for the first try.
    public var number: Int
    /// What the attempt meant to the policy.
    public var outcome: AttemptOutcome
    /// What the operation threw, when it threw an error of its own type.
    public var thrown: Failure?

    @inlinable
    public init(number: Int, outcome: AttemptOutcome, thrown: Failure? = nil) {
        self.number = number
        self.outcome = outcome
        self.thrown = thrown
    }
}
