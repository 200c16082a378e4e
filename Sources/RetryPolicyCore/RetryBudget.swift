/// The numbers of a retry budget: a token bucket shared by every request
/// under one policy.
///
/// Two styles, as peers define them:
///
/// - ``Style/tokenBucket``, the AWS SDKs' retry quota: a retry takes its
///   cost from the bucket and is refused when fewer tokens remain; the cost
///   depends on the kind of failure (throttling, timeout, anything else);
///   a success gives back what its last retry cost, or ``successRefund``
///   when it needed none.
/// - ``Style/grpc``, gRPC retry throttling (gRFC A6): every retryable
///   failure takes one token (never below zero), every success adds
///   `tokenRatio`, and a retry is allowed only while more than half of
///   `maxTokens` remain. Tokens are counted in thousandths, so
///   ``capacity`` is `maxTokens × 1000`, every cost is 1000 and
///   ``successRefund`` is `tokenRatio × 1000` (gRPC allows three decimals).
///
/// During an outage every retry spends tokens and nothing refunds them, so
/// a fleet's retries stop after a bounded number instead of multiplying the
/// load on a struggling server.
public struct RetryBudgetConfiguration: Hashable, Sendable {
    /// How tokens are spent and when a retry is allowed.
    public enum Style: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// A retry takes its cost, or is refused when fewer tokens remain.
        case tokenBucket = "token_bucket"
        /// gRPC retry throttling: failures drain, retries need more than
        /// half of capacity left.
        case grpc

        public var description: String { rawValue }
    }

    public var style: Style
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
    /// Tokens a success that needed no retry gives back. A success after
    /// retries gives back what its last retry cost (token bucket); with
    /// gRPC throttling every success gives back this amount.
    public var successRefund: Int
    /// The named preset the numbers came from, if any (`aws-standard`, ...).
    public var preset: String?
    public var location: SourceLocation?

    public init(
        style: Style = .tokenBucket,
        capacity: Int = 500,
        retryCost: Int = 5,
        timeoutRetryCost: Int = 10,
        throttlingRetryCost: Int? = nil,
        throttlingErrors: Set<SDKError.Kind> = [.status429],
        successRefund: Int = 1,
        preset: String? = nil,
        location: SourceLocation? = nil
    ) {
        self.style = style
        self.capacity = capacity
        self.retryCost = retryCost
        self.timeoutRetryCost = timeoutRetryCost
        self.throttlingRetryCost = throttlingRetryCost ?? retryCost
        self.throttlingErrors = throttlingErrors
        self.successRefund = successRefund
        self.preset = preset
        self.location = location
    }

    /// The AWS SDKs' standard retry quota before 2026: 500 tokens, a retry
    /// costs 5, a retry after a timeout 10, a success without retries gives
    /// back 1.
    public static let awsStandard = RetryBudgetConfiguration(
        capacity: 500, retryCost: 5, timeoutRetryCost: 10, throttlingRetryCost: 5, successRefund: 1, preset: "aws-standard")

    /// The AWS SDKs' standard retry behaviour from 2026: a transient retry
    /// costs 14, a throttled one 5, timeouts are transient (no surcharge).
    public static let awsStandard2026 = RetryBudgetConfiguration(
        capacity: 500, retryCost: 14, timeoutRetryCost: 14, throttlingRetryCost: 5, successRefund: 1,
        preset: "aws-standard-2026")

    /// gRPC retry throttling with `maxTokens` (1...1000) and a token ratio
    /// in thousandths (`tokenRatio` 0.1 is 100).
    public static func grpc(maxTokens: Int, tokenRatioThousandths: Int, location: SourceLocation? = nil) -> RetryBudgetConfiguration {
        RetryBudgetConfiguration(
            style: .grpc, capacity: maxTokens * 1000, retryCost: 1000, timeoutRetryCost: 1000, throttlingRetryCost: 1000,
            throttlingErrors: [], successRefund: tokenRatioThousandths, preset: "grpc", location: location)
    }

    /// gRPC's `maxTokens` (whole tokens).
    public var maxTokens: Int { capacity / 1000 }

    /// For gRPC throttling: a retry is allowed only while more than this
    /// many tokens (half of capacity) remain after the failure.
    public var threshold: Int { style == .grpc ? capacity / 2 : 0 }

    /// What a retry after a failure of `kind` costs (timeouts are
    /// recognised by the transport failure, throttling by ``throttlingErrors``,
    /// which wins).
    @inlinable
    public func cost(for kind: SDKError.Kind, isTimeout: Bool) -> Int {
        if !throttlingErrors.isEmpty, throttlingErrors.contains(kind) { return throttlingRetryCost }
        return isTimeout ? timeoutRetryCost : retryCost
    }

    /// How many retries in a row a full bucket pays for with no success in
    /// between (transient failures).
    public var consecutiveRetries: Int { consecutive(cost: retryCost) }
    /// The same for retries after timeouts.
    public var consecutiveTimeoutRetries: Int { consecutive(cost: timeoutRetryCost) }
    /// The same for retries after throttling.
    public var consecutiveThrottlingRetries: Int { consecutive(cost: throttlingRetryCost) }

    private func consecutive(cost: Int) -> Int {
        switch style {
        case .tokenBucket:
            return cost > 0 ? capacity / cost : Int.max
        case .grpc:
            // Failure n leaves capacity - n × cost; it may be retried while
            // that is above half of capacity.
            guard cost > 0 else { return Int.max }
            return Swift.max(0, (capacity - threshold - 1) / cost)
        }
    }
}

/// The live token bucket. Lock-free: withdrawals and refunds are
/// compare-and-swap loops on one atomic integer, so deciding never blocks.
///
/// With a ``RetryStateStore`` the bucket is shared under ``key`` by everyone
/// using that store (for instance a whole fleet); the atomic integer is
/// then this process's view of it, which the store keeps current and falls
/// back to when the shared bucket cannot be reached.
public final class RetryBudget: Sendable {
    public let configuration: RetryBudgetConfiguration
    /// The key the bucket is shared under, when it has a store.
    public let key: String?
    /// Where the bucket is shared; `nil` keeps it in this process.
    public let store: (any RetryStateStore)?
    private let tokens: AtomicInt64

    public init(configuration: RetryBudgetConfiguration) {
        self.configuration = configuration
        self.key = nil
        self.store = nil
        self.tokens = AtomicInt64(Int64(Swift.max(configuration.capacity, 0)))
    }

    /// A bucket shared through `store` under `key`.
    public init(configuration: RetryBudgetConfiguration, store: any RetryStateStore, key: String) {
        self.configuration = configuration
        self.key = key
        self.store = store
        self.tokens = AtomicInt64(Int64(Swift.max(configuration.capacity, 0)))
    }

    /// Tokens left now (with a store: as last seen by this process).
    public var available: Int { Int(truncatingIfNeeded: tokens.load(ordering: .relaxed)) }

    /// Whether paying from this bucket may wait on its store (a
    /// database): then the request state machine hands the payment to its
    /// driver to await (`RequestStateMachine.Action.payBudget`).
    public var paymentsWait: Bool { store?.paymentsWait ?? false }

    /// Takes `cost` tokens if that many are left. Never goes negative and
    /// never waits: with a store whose payments wait, decided on this
    /// process's view (the store shares the spend later).
    public func withdraw(_ cost: Int) -> Bool {
        if cost <= 0 { return true }
        if let store { return store.withdrawWithoutWaiting(cost, from: self) }
        return withdrawLocally(cost)
    }

    /// Takes `cost` tokens if that many are left, from the bucket the store
    /// shares (atomic across its sharers); may wait on the store.
    public func withdraw(_ cost: Int) async -> Bool {
        if cost <= 0 { return true }
        if let store { return await store.withdraw(cost, from: self) }
        return withdrawLocally(cost)
    }

    /// Takes `cost` tokens, or all that are left when fewer remain, and
    /// returns how many remain (gRPC throttling records a failure so).
    /// Never waits, like the synchronous `withdraw(_:)`.
    public func drain(_ cost: Int) -> Int {
        if cost <= 0 { return available }
        if let store { return store.drainWithoutWaiting(cost, from: self) }
        return drainLocally(cost)
    }

    /// `drain(_:)` from the bucket the store shares; may wait
    /// on the store.
    public func drain(_ cost: Int) async -> Int {
        if cost <= 0 { return available }
        if let store { return await store.drain(cost, from: self) }
        return drainLocally(cost)
    }

    /// Returns `amount` tokens, never beyond capacity.
    public func deposit(_ amount: Int) {
        if amount <= 0 { return }
        if let store { return store.deposit(amount, to: self) }
        depositLocally(amount)
    }

    /// Takes `cost` tokens from this process's bucket only.
    public func withdrawLocally(_ cost: Int) -> Bool {
        if cost <= 0 { return true }
        let cost = Int64(cost)
        var current = tokens.load(ordering: .relaxed)
        while true {
            if current < cost { return false }
            let (exchanged, original) = tokens.compareExchange(
                expected: current, desired: current - cost, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
    }

    /// Takes `cost` tokens (or what is left) from this process's bucket
    /// only; returns the tokens left. Never goes negative.
    public func drainLocally(_ cost: Int) -> Int {
        if cost <= 0 { return available }
        let cost = Int64(cost)
        var current = tokens.load(ordering: .relaxed)
        while true {
            let desired = Swift.max(current - cost, 0)
            let (exchanged, original) = tokens.compareExchange(
                expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return Int(truncatingIfNeeded: desired) }
            current = original
        }
    }

    /// Returns `amount` tokens to this process's bucket only.
    public func depositLocally(_ amount: Int) {
        if amount <= 0 { return }
        let amount = Int64(amount)
        let capacity = Int64(configuration.capacity)
        var current = tokens.load(ordering: .relaxed)
        while true {
            let desired = Swift.min(capacity, current &+ amount)
            if desired == current { return }
            let (exchanged, original) = tokens.compareExchange(
                expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    /// Sets this process's view to `available` tokens (clamped to
    /// `0...capacity`): what a store does when it learns the shared value.
    public func synchronize(available: Int) {
        tokens.store(Int64(Swift.min(Swift.max(available, 0), Swift.max(configuration.capacity, 0))), ordering: .relaxed)
    }
}
