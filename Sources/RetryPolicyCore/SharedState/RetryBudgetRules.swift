/// The rules of one budget style: how many tokens its bucket holds, and
/// what a retryable failure, a retry, a hedge and a success do to them.
///
/// Each style is one type conforming to this protocol
/// (``TokenBucketBudget``, ``GRPCRetryThrottling``, ``RatioRetryBudget``) and one case of
/// `RetryBudgetConfiguration.Rules`; the decider asks only these
/// questions, through `RetryBudget`, so a new style changes no decision
/// code. Every requirement acts on a live bucket (which keeps its tokens
/// in this process or through a ``RetryStateStore``) and never waits,
/// except ``settle(_:)``, which a driver awaits.
package protocol RetryBudgetRules: Hashable, Sendable {
    /// Tokens a full bucket holds: it starts full and never goes above.
    var capacity: Int { get }

    /// A request starts at `now`, its first attempt about to be sent: a
    /// style that counts requests (a ratio budget) deposits. Only
    /// policies whose `RetryBudgetConfiguration.countsRequests` is true
    /// are asked.
    func recordRequest(at now: Timestamp, in bucket: RetryBudget)

    /// A failure the policy would retry happened (the last attempt's
    /// included), before anything else decides whether it is retried.
    /// `deferring`: a driver will await the payment of the retry, so
    /// whatever waits on the store is left to it.
    func recordFailure(in bucket: RetryBudget, deferring: Bool) -> BudgetFailureMark

    /// The failure marked `mark` (a `kind` failure; `isTimeout` for a
    /// transport timeout) is otherwise retried: what the retry costs, and
    /// whether it is paid, refused or left to the driver (`deferring`).
    /// `now` is the decision's time (`nil`: unknown), which a style whose
    /// deposits expire reads.
    func payForRetry(
        after mark: BudgetFailureMark, kind: SDKError.Kind, isTimeout: Bool, at now: Timestamp?, from bucket: RetryBudget,
        deferring: Bool
    ) -> BudgetCharge

    /// The failure marked `mark` stops for another reason: settles what
    /// `recordFailure` left to the payment.
    func abandon(_ mark: BudgetFailureMark, in bucket: RetryBudget)

    /// A retry with no failure to price: a hedged copy starting because
    /// its delay passed, or a retry code asks for in place of a stop, at
    /// `now` (`nil`: unknown).
    func payForUnpricedRetry(at now: Timestamp?, from bucket: RetryBudget, deferring: Bool) -> BudgetCharge

    /// A retry paid with `charge` will not start (a hedge never sent, a
    /// retry code turned into a stop): gives back or settles what it must.
    func cancel(_ charge: BudgetCharge, in bucket: RetryBudget)

    /// A success; `lastRetryCost` is what the retry before it cost (0 for
    /// a first try).
    func recordSuccess(lastRetryCost: Int, in bucket: RetryBudget)

    /// Pays `payment` (a charge left to the driver) from the bucket the
    /// store shares, waiting as long as the store takes; `true` when the
    /// retry may go ahead.
    func settle(_ payment: BudgetPayment) async -> Bool

    /// `settle(_:)` on this process's view of the bucket, without waiting.
    func settleWithoutWaiting(_ payment: BudgetPayment) -> Bool

    /// How many retries in a row, each costing `cost`, a full bucket
    /// allows with no success in between.
    func consecutiveRetries(cost: Int) -> Int
}

/// What a budget style made of a retryable failure, carried to the
/// payment of its retry (or to its abandonment).
package enum BudgetFailureMark: Hashable, Sendable {
    /// The style prices the retry, not the failure.
    case unrecorded
    /// The failure was counted; `permitsRetry` says whether the style
    /// still allows a retry.
    case counted(permitsRetry: Bool)
    /// The failure is counted when the driver pays for the retry.
    case countedOnPayment
}

/// What paying for a retry came to.
package enum BudgetCharge: Hashable, Sendable {
    /// Paid: the retry cost this many tokens.
    case paid(Int)
    /// The driver pays `cost` through the store, as `kind` says.
    case pending(BudgetPayment.Kind, cost: Int)
    /// The budget allows no retry.
    case refused
}

/// Each style's rules, by case: the one place that lists the styles.
/// A new style adds its case to every switch here; nothing else in the
/// decision path names a style.
extension RetryBudgetConfiguration.Rules: RetryBudgetRules {
    package var capacity: Int {
        switch self {
        case .tokenBucket(let rules): rules.capacity
        case .grpc(let rules): rules.capacity
        case .ratio(let rules): rules.capacity
        }
    }

    package func recordRequest(at now: Timestamp, in bucket: RetryBudget) {
        if case .ratio(let rules) = self { rules.recordRequest(at: now, in: bucket) }
    }

    package func recordFailure(in bucket: RetryBudget, deferring: Bool) -> BudgetFailureMark {
        switch self {
        case .tokenBucket(let rules): rules.recordFailure(in: bucket, deferring: deferring)
        case .grpc(let rules): rules.recordFailure(in: bucket, deferring: deferring)
        case .ratio(let rules): rules.recordFailure(in: bucket, deferring: deferring)
        }
    }

    package func payForRetry(
        after mark: BudgetFailureMark, kind: SDKError.Kind, isTimeout: Bool, at now: Timestamp?, from bucket: RetryBudget,
        deferring: Bool
    ) -> BudgetCharge {
        switch self {
        case .tokenBucket(let rules):
            rules.payForRetry(after: mark, kind: kind, isTimeout: isTimeout, at: now, from: bucket, deferring: deferring)
        case .grpc(let rules):
            rules.payForRetry(after: mark, kind: kind, isTimeout: isTimeout, at: now, from: bucket, deferring: deferring)
        case .ratio(let rules):
            rules.payForRetry(after: mark, kind: kind, isTimeout: isTimeout, at: now, from: bucket, deferring: deferring)
        }
    }

    package func abandon(_ mark: BudgetFailureMark, in bucket: RetryBudget) {
        switch self {
        case .tokenBucket(let rules): rules.abandon(mark, in: bucket)
        case .grpc(let rules): rules.abandon(mark, in: bucket)
        case .ratio(let rules): rules.abandon(mark, in: bucket)
        }
    }

    package func payForUnpricedRetry(at now: Timestamp?, from bucket: RetryBudget, deferring: Bool) -> BudgetCharge {
        switch self {
        case .tokenBucket(let rules): rules.payForUnpricedRetry(at: now, from: bucket, deferring: deferring)
        case .grpc(let rules): rules.payForUnpricedRetry(at: now, from: bucket, deferring: deferring)
        case .ratio(let rules): rules.payForUnpricedRetry(at: now, from: bucket, deferring: deferring)
        }
    }

    package func cancel(_ charge: BudgetCharge, in bucket: RetryBudget) {
        switch self {
        case .tokenBucket(let rules): rules.cancel(charge, in: bucket)
        case .grpc(let rules): rules.cancel(charge, in: bucket)
        case .ratio(let rules): rules.cancel(charge, in: bucket)
        }
    }

    package func recordSuccess(lastRetryCost: Int, in bucket: RetryBudget) {
        switch self {
        case .tokenBucket(let rules): rules.recordSuccess(lastRetryCost: lastRetryCost, in: bucket)
        case .grpc(let rules): rules.recordSuccess(lastRetryCost: lastRetryCost, in: bucket)
        case .ratio(let rules): rules.recordSuccess(lastRetryCost: lastRetryCost, in: bucket)
        }
    }

    package func settle(_ payment: BudgetPayment) async -> Bool {
        switch self {
        case .tokenBucket(let rules): await rules.settle(payment)
        case .grpc(let rules): await rules.settle(payment)
        case .ratio(let rules): await rules.settle(payment)
        }
    }

    package func settleWithoutWaiting(_ payment: BudgetPayment) -> Bool {
        switch self {
        case .tokenBucket(let rules): rules.settleWithoutWaiting(payment)
        case .grpc(let rules): rules.settleWithoutWaiting(payment)
        case .ratio(let rules): rules.settleWithoutWaiting(payment)
        }
    }

    package func consecutiveRetries(cost: Int) -> Int {
        switch self {
        case .tokenBucket(let rules): rules.consecutiveRetries(cost: cost)
        case .grpc(let rules): rules.consecutiveRetries(cost: cost)
        case .ratio(let rules): rules.consecutiveRetries(cost: cost)
        }
    }
}

extension RetryBudgetRules {
    /// Styles that price retries against failures and successes count no
    /// requests.
    package func recordRequest(at now: Timestamp, in bucket: RetryBudget) {}
}
