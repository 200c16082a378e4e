/// gRPC retry throttling, as gRFC A6 ("gRPC Retry Design", section
/// "Throttling Retry Attempts and Hedged RPCs",
/// https://github.com/grpc/proposal/blob/master/A6-client-retries.md)
/// defines it: tokens start at `maxTokens`; every failure the policy
/// would retry takes one token (never below zero), the last attempt's
/// included; every success adds `tokenRatio` (never above `maxTokens`);
/// and a retry or hedge is allowed only while more than `maxTokens / 2`
/// tokens remain.
///
/// gRPC gives `tokenRatio` three decimals, so the bucket counts
/// thousandths of a token: it holds `maxTokens × 1000`, a failure takes
/// 1000 and a success adds ``tokenRatio`` (already in thousandths).
public struct GRPCRetryThrottling: Hashable, Sendable {
    /// Whole tokens, 1...1000 in gRPC's service config.
    public var maxTokens: Int
    /// What a success adds, in thousandths of a token (`tokenRatio` 0.1
    /// is 100).
    public var tokenRatio: Int

    public init(maxTokens: Int, tokenRatio: Int) {
        self.maxTokens = maxTokens
        self.tokenRatio = tokenRatio
    }

    /// One token, in the bucket's thousandths: what every failure takes.
    package static let failureCost = 1000

    /// The bucket's capacity in thousandths (saturating: a `maxTokens`
    /// beyond any real config cannot wrap around).
    package var capacity: Int {
        let (product, overflow) = maxTokens.multipliedReportingOverflow(by: Self.failureCost)
        return overflow ? (maxTokens < 0 ? Int.min : Int.max) : product
    }

    /// A retry is allowed only while more than this many thousandths
    /// remain: half of capacity.
    package var threshold: Int { capacity / 2 }

    /// Whether the tokens in `bucket` allow a retry now.
    package func permitsRetry(_ bucket: RetryBudget) -> Bool { bucket.available > threshold }
}

extension GRPCRetryThrottling: RetryBudgetRules {
    /// Every retryable failure counts before anything else decides; a
    /// driver that awaits a waiting store counts it when it pays.
    package func recordFailure(in bucket: RetryBudget, deferring: Bool) -> BudgetFailureMark {
        if deferring { return .countedOnPayment }
        return .counted(permitsRetry: bucket.drain(Self.failureCost) > threshold)
    }

    package func payForRetry(
        after mark: BudgetFailureMark, kind: SDKError.Kind, isTimeout: Bool, at now: Timestamp?, from bucket: RetryBudget,
        deferring: Bool
    ) -> BudgetCharge {
        switch mark {
        case .countedOnPayment: .pending(.drain, cost: Self.failureCost)
        case .counted(let permits): permits ? .paid(Self.failureCost) : .refused
        // Not counted yet (never the case from this style's own
        // `recordFailure`): count it now.
        case .unrecorded: bucket.drain(Self.failureCost) > threshold ? .paid(Self.failureCost) : .refused
        }
    }

    /// A failure left to the payment still counts when it stops first.
    package func abandon(_ mark: BudgetFailureMark, in bucket: RetryBudget) {
        if case .countedOnPayment = mark { _ = bucket.drain(Self.failureCost) }
    }

    /// A hedge, or a retry code asks for after a failure already counted,
    /// takes nothing: it needs only the tokens to be above the threshold.
    package func payForUnpricedRetry(at now: Timestamp?, from bucket: RetryBudget, deferring: Bool) -> BudgetCharge {
        permitsRetry(bucket) ? .paid(Self.failureCost) : .refused
    }

    /// Nothing was taken for a retry; a failure whose count was left to
    /// the payment still counts.
    package func cancel(_ charge: BudgetCharge, in bucket: RetryBudget) {
        if case .pending(.drain, _) = charge { _ = bucket.drain(Self.failureCost) }
    }

    /// Every success adds the token ratio, whatever came before it.
    package func recordSuccess(lastRetryCost: Int, in bucket: RetryBudget) { bucket.deposit(tokenRatio) }

    package func settle(_ payment: BudgetPayment) async -> Bool { await payment.budget.drain(payment.cost) > threshold }

    package func settleWithoutWaiting(_ payment: BudgetPayment) -> Bool { payment.budget.drain(payment.cost) > threshold }

    /// Failure n leaves capacity - n × cost; it may be retried while that
    /// is above half of capacity.
    package func consecutiveRetries(cost: Int) -> Int {
        guard cost > 0 else { return Int.max }
        return Swift.max(0, (capacity - threshold - 1) / cost)
    }
}
