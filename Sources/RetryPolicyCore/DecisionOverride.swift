/// What code says about a failed attempt, against or along with the
/// policy: the escape hatch of Polly's `ShouldHandle`, resilience4j's
/// `retryOnException` and a per-error strategy closure.
///
/// An override decides in code, where lint, `table`, `diff` and
/// `simulate` cannot see it: prefer a declared condition
/// (``AttemptCondition``), which keeps the decision in the policy file.
/// Whatever it says, the request still keeps to the policy's attempts,
/// total deadline and retry budget.
public enum DecisionOverride: Hashable, Sendable {
    /// The policy decides.
    case asPolicySays
    /// Retry after exactly this delay, if attempts, deadline and budget
    /// allow (the policy's backoff and the server's delay are not used).
    case retry(after: Duration)
    /// Stop now, reporting the error kind the policy maps the outcome to.
    case stop
}

extension RetryDecider {
    /// `decision`, as `override` changes it, for the attempt described by
    /// `input`.
    ///
    /// A success stays a success (overrides are asked about failures).
    /// Turning a retry into a stop gives back the budget the retry took;
    /// turning a stop into a retry pays for it, and is refused when the
    /// attempts are used up, the delay would end past the total deadline,
    /// the budget is empty or the caller cancelled.
    package func applying(_ override: DecisionOverride, to decision: Decision, input: DecisionInput) -> Decision {
        applying(override, to: decision, input: input, defersWaitingPayment: false)
    }

    /// `defersWaitingPayment` as in `decide`: a retry the override makes
    /// under a budget whose store may wait is left for the driver to pay.
    package func applying(
        _ override: DecisionOverride, to decision: Decision, input: DecisionInput, defersWaitingPayment: Bool
    ) -> Decision {
        switch (override, decision.action) {
        case (.asPolicySays, _), (_, .success):
            return decision
        case (.stop, .stop):
            return decision
        case (.stop, .retry):
            // The budget's style gives back what the retry took, or
            // settles what it left to the payment.
            state.cancel(decision.pendingPayment.map { .pending($0, cost: decision.budgetCost) } ?? .paid(decision.budgetCost))
            var stopped = decision
            stopped.action = .stop(error(for: input.outcome, kind: decision.errorKind), .notRetryable)
            stopped.delayBounds = nil
            stopped.serverDirected = false
            stopped.refreshCredentials = false
            stopped.budgetCost = 0
            stopped.pendingPayment = nil
            return stopped
        case (.retry(let delay), .retry):
            var retried = decision
            retried.action = .retry(after: delay)
            retried.delayBounds = delay...delay
            retried.serverDirected = false
            return retried
        case (.retry(let delay), .stop(let error, let reason)):
            switch reason {
            case .notRetryable, .notIdempotent, .retryAfterTooLong, .serverPushback: break
            case .attemptsExhausted, .deadlineExceeded, .budgetExhausted, .cancelled, .circuitOpen: return decision
            }
            func stop(_ reason: StopReason) -> Decision {
                var stopped = decision
                stopped.action = .stop(error, reason)
                return stopped
            }
            guard input.attempt < policy.attempts else { return stop(.attemptsExhausted) }
            if let total = policy.timeouts(for: input.endpoint).total, input.elapsed + delay >= total {
                return stop(.deadlineExceeded)
            }
            let cost: Int
            var pending: BudgetPayment.Kind?
            switch state.payForUnpricedRetry(at: input.now, driverPays: defersWaitingPayment) {
            case .paid(let paid): cost = paid
            case .pending(let payment, let owed):
                cost = owed
                pending = payment
            case .refused: return stop(.budgetExhausted)
            }
            var retry = Decision(
                action: .retry(after: delay), ruleIndex: decision.ruleIndex, ruleLocation: decision.ruleLocation,
                delayBounds: delay...delay, budgetCost: cost, errorKind: error.kind)
            retry.pendingPayment = pending
            return retry
        }
    }

    /// The error an outcome reports as `kind`.
    func error(for outcome: AttemptOutcome, kind: SDKError.Kind?) -> SDKError {
        var error = SDKError(kind: kind ?? .internalError)
        switch outcome {
        case .response(let status, _): error.statusCode = status
        case .transport(let transport): error.transport = transport
        case .condition(let condition): error.condition = condition
        case .grpc(let status, _): error.grpcStatus = status
        }
        return error
    }
}
