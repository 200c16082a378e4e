/// A retry paid for by a budget whose store may wait: the machine hands
/// the payment to its driver (``RequestStateMachine/Action/payBudget(_:)``)
/// and resumes when the driver reports the answer, so the decision path
/// itself never waits on shared state.
extension RequestStateMachine {
    /// A sequential attempt's outcome whose retry waits for its payment.
    /// Behind a reference, so that the machine stays as small as it is
    /// while no payment is pending.
    final class PendingRetry: Sendable {
        let decision: Decision
        let outcome: AttemptOutcome
        let startedAt: Duration
        let finishedAt: RequestTime
        let producedValue: Bool
        let thrown: (any Error)?

        init(
            decision: Decision, outcome: AttemptOutcome, startedAt: Duration, finishedAt: RequestTime,
            producedValue: Bool, thrown: (any Error)?
        ) {
            self.decision = decision
            self.outcome = outcome
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.producedValue = producedValue
            self.thrown = thrown
        }
    }

    /// The budget answered the payment the machine asked for at `time`:
    /// `granted` (what ``BudgetPayment/settle()`` returned) lets the retry
    /// go ahead; otherwise the request stops with `budget_exhausted`.
    public mutating func budgetPaid(_ granted: Bool, at time: RequestTime) -> Action {
        guard case .paying(let pending) = state else { preconditionFailure("budgetPaid follows payBudget") }
        let decision = decider.settled(pending.decision, granted: granted, input: input)
        return conclude(
            decision, pending.outcome, startedAt: pending.startedAt, finishedAt: pending.finishedAt,
            producedValue: pending.producedValue, thrown: pending.thrown, at: time)
    }
}
