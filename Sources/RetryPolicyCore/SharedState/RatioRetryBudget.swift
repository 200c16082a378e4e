/// A ratio retry budget, the budget of Finagle, Linkerd and the service
/// meshes: every request deposits a fraction of a retry, every retry
/// withdraws a whole one, deposits and withdrawals expire after
/// ``window``, and a reserve of ``minRetriesPerSecond`` over the window
/// is always there.
///
/// Over any window a client therefore sends at most
/// `percent × requests + minRetriesPerSecond × window` retries, so under a
/// total outage, once a window has passed, its amplification stays below
/// `1 + percent + minRetriesPerSecond ÷ request rate` (Finagle's defaults
/// at 1,000 requests a second: 1.21). Over a whole storm of `T` seconds the
/// reserve of one more window comes on top,
/// `minRetriesPerSecond × window ÷ (request rate × T)`: the reserve is
/// there from the start, as in Finagle's `RetryBudget`.
///
/// The ledger counts thousandths of a retry: a retry costs
/// ``retryCost`` (1000), a request deposits ``permille``.
public struct RatioRetryBudget: Hashable, Sendable {
    /// Retries allowed per 1000 requests (a retry ratio of 0.2, 20 %, is
    /// 200).
    public var permille: Int
    /// Retries always allowed per second, whatever the traffic.
    public var minRetriesPerSecond: Int
    /// How long a deposit (and a withdrawal) counts.
    public var window: Duration

    public init(permille: Int, minRetriesPerSecond: Int, window: Duration) {
        self.permille = permille
        self.minRetriesPerSecond = minRetriesPerSecond
        self.window = window
    }

    /// `finagle`: Finagle's `RetryBudget()` defaults (and Linkerd's, the
    /// same numbers): 20 % of requests, at least 10 retries a second,
    /// deposits counting for 10 seconds.
    public static let finagle = RatioRetryBudget(permille: 200, minRetriesPerSecond: 10, window: .seconds(10))

    /// `envoy`: Envoy's `retry_budget` defaults (20 % of active requests,
    /// at least 3 concurrent retries) as a rate over one second: a
    /// concurrency cap of 3 is 3 retries a second when a retry lasts a
    /// second; see docs/policy-format.md for what the mapping loses.
    public static let envoy = RatioRetryBudget(permille: 200, minRetriesPerSecond: 3, window: .seconds(1))

    /// `gateway-api`: Kubernetes Gateway API GEP-3388 `retryConstraint`
    /// defaults: 20 % over a 10 s interval, at least 10 retries a second.
    public static let gatewayAPI = RatioRetryBudget(permille: 200, minRetriesPerSecond: 10, window: .seconds(10))

    /// What one retry costs, in thousandths of a retry.
    public static let retryCost = 1000

    /// The window's length in whole nanoseconds (at least 1, saturating).
    public var windowNanoseconds: Int64 { Swift.max(window.nanosecondsSaturated, 1) }

    /// The thousandths of a retry always available over one window:
    /// `minRetriesPerSecond × window × 1000`, saturating.
    public var reserve: Int {
        guard minRetriesPerSecond > 0 else { return 0 }
        let (perSecond, overflow) = minRetriesPerSecond.multipliedReportingOverflow(by: Self.retryCost)
        if overflow { return Int.max }
        // perSecond × nanoseconds ÷ 1e9, without overflowing the product.
        let nanoseconds = Int(windowNanoseconds)
        let seconds = nanoseconds / 1_000_000_000
        let fraction = nanoseconds % 1_000_000_000
        let (whole, overflowWhole) = perSecond.multipliedReportingOverflow(by: seconds)
        if overflowWhole { return Int.max }
        let part = Int((Double(perSecond) * Double(fraction) / 1_000_000_000).rounded(.down))
        let (sum, overflowSum) = whole.addingReportingOverflow(part)
        return overflowSum ? Int.max : sum
    }

    /// The most a client sends for `requests` first attempts a second
    /// under a total outage, once a window has passed, as a multiple of
    /// its requests: `1 + percent + minRetriesPerSecond ÷ requests` (a
    /// whole storm adds the starting reserve, see above).
    public func amplificationBound(requestsPerSecond requests: Double) -> Double {
        guard requests > 0 else { return .infinity }
        return 1 + Double(permille) / 1000 + Double(minRetriesPerSecond) / requests
    }
}

extension RatioRetryBudget: RetryBudgetRules {
    /// The reserve: what the budget allows with no traffic.
    public var capacity: Int { reserve }

    package func recordRequest(at now: Timestamp, in bucket: RetryBudget) {
        bucket.depositRequest(permille, at: now)
    }

    /// The retry is priced, not the failure.
    package func recordFailure(in bucket: RetryBudget, deferring: Bool) -> BudgetFailureMark { .unrecorded }

    package func payForRetry(
        after mark: BudgetFailureMark, kind: SDKError.Kind, isTimeout: Bool, at now: Timestamp?, from bucket: RetryBudget,
        deferring: Bool
    ) -> BudgetCharge {
        withdraw(at: now, from: bucket, deferring: deferring)
    }

    package func abandon(_ mark: BudgetFailureMark, in bucket: RetryBudget) {}

    /// A hedge, or a retry code asks for, is a retry like any other.
    package func payForUnpricedRetry(at now: Timestamp?, from bucket: RetryBudget, deferring: Bool) -> BudgetCharge {
        withdraw(at: now, from: bucket, deferring: deferring)
    }

    /// A retry that will not start gives its withdrawal back.
    package func cancel(_ charge: BudgetCharge, in bucket: RetryBudget) {
        if case .paid(let cost) = charge, cost > 0 { bucket.depositRequest(cost, at: nil) }
    }

    /// The deposit was made when the request started.
    package func recordSuccess(lastRetryCost: Int, in bucket: RetryBudget) {}

    package func settle(_ payment: BudgetPayment) async -> Bool {
        await payment.budget.withdrawRetry(payment.cost, at: nil)
    }

    package func settleWithoutWaiting(_ payment: BudgetPayment) -> Bool {
        payment.budget.withdrawRetry(payment.cost, at: nil)
    }

    /// With no traffic only the reserve pays.
    package func consecutiveRetries(cost: Int) -> Int { cost > 0 ? reserve / cost : Int.max }

    private func withdraw(at now: Timestamp?, from bucket: RetryBudget, deferring: Bool) -> BudgetCharge {
        if deferring {
            // The payment settles without the decision's time: the window
            // learns it now.
            _ = bucket.window?.slot(at: now)
            return .pending(.withdraw, cost: Self.retryCost)
        }
        return bucket.withdrawRetry(Self.retryCost, at: now) ? .paid(Self.retryCost) : .refused
    }
}
