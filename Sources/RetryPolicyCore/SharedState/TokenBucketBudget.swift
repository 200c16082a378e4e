/// The AWS SDKs' retry quota: a token bucket a retry takes its cost from,
/// refused when fewer tokens remain.
///
/// The cost depends on the kind of failure: throttling (one of
/// ``throttlingErrors``), a timeout, anything else. A success gives back
/// what its last retry cost, or ``successRefund`` when it needed none.
public struct TokenBucketBudget: Hashable, Sendable {
    /// Tokens a full bucket holds.
    public var capacity: Int
    /// Tokens one retry costs (a transient failure: 5xx, network errors).
    public var retryCost: Int
    /// Tokens a retry after a timeout costs.
    public var timeoutRetryCost: Int
    /// Tokens a retry after a throttling error (one of
    /// ``throttlingErrors``) costs.
    public var throttlingRetryCost: Int
    /// The error kinds that count as throttling, such as `status_429`.
    public var throttlingErrors: Set<SDKError.Kind>
    /// Tokens a success that needed no retry gives back.
    public var successRefund: Int

    public init(
        capacity: Int = 500, retryCost: Int = 5, timeoutRetryCost: Int = 10, throttlingRetryCost: Int? = nil,
        throttlingErrors: Set<SDKError.Kind> = [.status429], successRefund: Int = 1
    ) {
        self.capacity = capacity
        self.retryCost = retryCost
        self.timeoutRetryCost = timeoutRetryCost
        self.throttlingRetryCost = throttlingRetryCost ?? retryCost
        self.throttlingErrors = throttlingErrors
        self.successRefund = successRefund
    }

    /// `aws-standard`, the AWS SDKs' standard retry quota before 2026: 500
    /// tokens, a retry costs 5, a retry after a timeout 10, after
    /// throttling 5, a success without retries gives back 1.
    public static let awsStandard = TokenBucketBudget(
        capacity: 500, retryCost: 5, timeoutRetryCost: 10, throttlingRetryCost: 5, successRefund: 1)

    /// `aws-standard-2026`, the AWS SDKs' standard retry behaviour from
    /// 2026: a transient retry costs 14, a throttled one 5, timeouts are
    /// transient (no surcharge), a success without retries gives back 1.
    public static let awsStandard2026 = TokenBucketBudget(
        capacity: 500, retryCost: 14, timeoutRetryCost: 14, throttlingRetryCost: 5, successRefund: 1)

    /// What a retry after a failure of `kind` costs (timeouts are
    /// recognised by the transport failure, throttling by
    /// ``throttlingErrors``, which wins).
    @inlinable
    package func cost(for kind: SDKError.Kind, isTimeout: Bool) -> Int {
        if !throttlingErrors.isEmpty, throttlingErrors.contains(kind) { return throttlingRetryCost }
        return isTimeout ? timeoutRetryCost : retryCost
    }
}

extension TokenBucketBudget: RetryBudgetRules {
    /// The retry is priced, not the failure.
    package func recordFailure(in bucket: RetryBudget, deferring: Bool) -> BudgetFailureMark { .unrecorded }

    package func payForRetry(
        after mark: BudgetFailureMark, kind: SDKError.Kind, isTimeout: Bool, at now: Timestamp?, from bucket: RetryBudget,
        deferring: Bool
    ) -> BudgetCharge {
        withdraw(cost(for: kind, isTimeout: isTimeout), from: bucket, deferring: deferring)
    }

    package func abandon(_ mark: BudgetFailureMark, in bucket: RetryBudget) {}

    /// A hedge, or a retry code asks for, costs a transient retry.
    package func payForUnpricedRetry(at now: Timestamp?, from bucket: RetryBudget, deferring: Bool) -> BudgetCharge {
        withdraw(retryCost, from: bucket, deferring: deferring)
    }

    /// What was paid comes back; a withdrawal left to the driver was
    /// never made.
    package func cancel(_ charge: BudgetCharge, in bucket: RetryBudget) {
        if case .paid(let cost) = charge { bucket.deposit(cost) }
    }

    package func recordSuccess(lastRetryCost: Int, in bucket: RetryBudget) {
        bucket.deposit(lastRetryCost > 0 ? lastRetryCost : successRefund)
    }

    package func settle(_ payment: BudgetPayment) async -> Bool { await payment.budget.withdraw(payment.cost) }

    package func settleWithoutWaiting(_ payment: BudgetPayment) -> Bool { payment.budget.withdraw(payment.cost) }

    package func consecutiveRetries(cost: Int) -> Int { cost > 0 ? capacity / cost : Int.max }

    /// Takes `cost` now, or leaves it to the driver when its store's
    /// payments wait.
    private func withdraw(_ cost: Int, from bucket: RetryBudget, deferring: Bool) -> BudgetCharge {
        if deferring && cost > 0 { return .pending(.withdraw, cost: cost) }
        return bucket.withdraw(cost) ? .paid(cost) : .refused
    }
}
