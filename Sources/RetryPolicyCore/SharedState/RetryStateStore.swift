/// Where a ``RetryBudget`` and a ``CooldownGate`` keep the state they share.
///
/// Without a store (the default) both keep their state in this process: the
/// budget is one atomic integer and the gate one atomic deadline, so
/// deciding costs what it always did. A store shares the state wider, for
/// instance across every process of a fleet through a database, under a
/// key (by default the policy's name; callers may pass another, such as one
/// per API key or per upstream).
///
/// A budget and a gate always keep their local state as well: it is what
/// admission reads (a store keeps it current, for example from
/// notifications), and what a store falls back to when the shared state
/// cannot be reached.
///
/// A store answers a withdrawal in one of two ways. A store whose
/// ``paymentsWait`` is `true` (a database) pays a retry through the
/// asynchronous ``withdraw(_:from:)`` and ``drain(_:from:)``, which the
/// executor awaits as the request state machine asks
/// (`RequestStateMachine.Action.payBudget`), so no thread ever blocks on
/// the shared state; callers that cannot wait (the synchronous
/// `RetryDecider.decide`, a hedged copy starting on its timer) use
/// ``withdrawWithoutWaiting(_:from:)``, which decides on this process's
/// view and shares the spend afterwards. A half-open breaker's probe is
/// claimed the same way: a store that may wait on it answers
/// ``admitUnlessClaiming(at:through:)`` with `nil`, and the executor awaits
/// ``claimProbe(at:through:)`` as the machine asks
/// (`RequestStateMachine.Action.claimProbe`); callers that cannot wait use
/// ``admit(at:through:)``, which decides on this process's breaker.
/// Deposits, cooldowns, results and releases never wait.
public protocol RetryStateStore: AnyObject, Sendable {
    /// Whether ``withdraw(_:from:)`` and ``drain(_:from:)`` may wait on
    /// something outside this process. The default is `false`: the
    /// asynchronous forms answer at once from the forms without waiting.
    var paymentsWait: Bool { get }

    /// Takes `cost` (> 0) tokens from the bucket `budget` shares under
    /// `budget.key`; `true` if that many were there. Atomic across everyone
    /// sharing the key. May wait, for a bounded time.
    func withdraw(_ cost: Int, from budget: RetryBudget) async -> Bool

    /// Takes `cost` (> 0) tokens from the bucket `budget` shares, or all
    /// that are left when fewer remain, and returns how many remain. Atomic
    /// across everyone sharing the key. gRPC-style throttling
    /// (``RetryBudgetConfiguration/Style/grpc``) records every retryable
    /// failure this way. May wait, for a bounded time.
    func drain(_ cost: Int, from budget: RetryBudget) async -> Int

    /// ``withdraw(_:from:)`` for a caller that cannot wait: decided on
    /// this process's view of the bucket; a store that shares the bucket
    /// elsewhere shares the spend later. Must not wait.
    func withdrawWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Bool

    /// ``drain(_:from:)`` for a caller that cannot wait, in the same way.
    /// Must not wait.
    func drainWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Int

    /// Returns `amount` (> 0) tokens to the bucket `budget` shares, never
    /// beyond capacity. Must not wait; may be applied later in batches.
    func deposit(_ amount: Int, to budget: RetryBudget)

    /// A request under the ratio budget `budget` (shared under
    /// `budget.key`) deposits `amount` (> 0) thousandths of a retry at
    /// `now` (`nil`: the latest time seen). Must not wait. The default
    /// keeps the deposit in this process.
    func depositRequest(_ amount: Int, at now: Timestamp?, to budget: RetryBudget)

    /// A retry withdraws `cost` (> 0) thousandths from the ratio budget
    /// `budget` shares, if its reserve and the deposits in its window
    /// cover it; atomic across everyone sharing the key. May wait, for a
    /// bounded time. The default answers from this process.
    func withdrawRetry(_ cost: Int, at now: Timestamp?, from budget: RetryBudget) async -> Bool

    /// ``withdrawRetry(_:at:from:)`` for a caller that cannot wait,
    /// decided on this process's window. Must not wait.
    func withdrawRetryWithoutWaiting(_ cost: Int, at now: Timestamp?, from budget: RetryBudget) -> Bool

    /// `gate` has just extended its local cooldown to `until` because of
    /// `error`: share it with everyone on `gate.key`. Must not wait.
    func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate)

    /// May a call under `breaker` (shared under `breaker.key`) start at
    /// `now`? The default keeps the breaker in this process. Must not
    /// wait: a probe whose permit ``claimProbe(at:through:)`` would wait
    /// for is decided on this process's breaker.
    ///
    /// The breaker's own state is reachable only from this package, so a
    /// store defined elsewhere shares budgets and cooldowns and keeps the
    /// defaults for the breaker requirements.
    func admit(at now: Timestamp, through breaker: CircuitBreaker)
        -> (Admission, CircuitBreakerTransition?)

    /// ``admit(at:through:)`` when it needs nothing the store must wait
    /// for; `nil` when the call is a half-open probe that must first claim
    /// a permit through ``claimProbe(at:through:)``. The default never
    /// returns `nil`. Must not wait.
    func admitUnlessClaiming(at now: Timestamp, through breaker: CircuitBreaker)
        -> (Admission, CircuitBreakerTransition?)?

    /// ``admit(at:through:)``, except that a half-open probe claims its
    /// permit wherever the store shares the breaker and waits for the
    /// answer, for a bounded time. The default answers at once from
    /// ``admit(at:through:)``.
    func claimProbe(at now: Timestamp, through breaker: CircuitBreaker) async
        -> (Admission, CircuitBreakerTransition?)

    /// A call admitted by `breaker` ended; the default records it in this
    /// process. Must not wait.
    func record(
        failure: Bool, ticket: CircuitBreakerStateMachine.Ticket, at now: Timestamp, in breaker: CircuitBreaker
    ) -> CircuitBreakerTransition?

    /// A call admitted by `breaker` will report no result (cancelled, or
    /// never started); the default releases it in this process. Must not
    /// wait.
    func release(_ ticket: CircuitBreakerStateMachine.Ticket, in breaker: CircuitBreaker)
}

/// The default store: state lives in this process only.
///
/// A budget or gate created without a store behaves exactly like one
/// created with this store, only without the indirection; the type exists
/// so that code written against ``RetryStateStore`` can ask for today's
/// behaviour by name.
public final class InMemoryRetryStateStore: RetryStateStore {
    public static let shared = InMemoryRetryStateStore()

    public init() {}

    public func withdrawWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Bool {
        budget.withdrawLocally(cost)
    }

    public func drainWithoutWaiting(_ cost: Int, from budget: RetryBudget) -> Int {
        budget.drainLocally(cost)
    }

    public func deposit(_ amount: Int, to budget: RetryBudget) {
        budget.depositLocally(amount)
    }

    public func cooldownRecorded(until: Timestamp, error: SDKError, by gate: CooldownGate) {}
}

extension RetryStateStore {
    public var paymentsWait: Bool { false }

    public func depositRequest(_ amount: Int, at now: Timestamp?, to budget: RetryBudget) {
        budget.depositRequestLocally(amount, at: now)
    }

    public func withdrawRetryWithoutWaiting(_ cost: Int, at now: Timestamp?, from budget: RetryBudget) -> Bool {
        budget.withdrawRetryLocally(cost, at: now)
    }

    public func withdrawRetry(_ cost: Int, at now: Timestamp?, from budget: RetryBudget) async -> Bool {
        withdrawRetryWithoutWaiting(cost, at: now, from: budget)
    }

    public func withdraw(_ cost: Int, from budget: RetryBudget) async -> Bool {
        withdrawWithoutWaiting(cost, from: budget)
    }

    public func drain(_ cost: Int, from budget: RetryBudget) async -> Int {
        drainWithoutWaiting(cost, from: budget)
    }
}
