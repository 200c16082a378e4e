/// Why a request stopped without success.
public enum StopReason: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The matching rule says stop.
    case notRetryable = "not_retryable"
    /// The attempt was the last one allowed.
    case attemptsExhausted = "attempts_exhausted"
    /// The next retry could not start before the total deadline.
    case deadlineExceeded = "deadline_exceeded"
    /// The shared retry budget has no tokens left.
    case budgetExhausted = "budget_exhausted"
    /// The method is not safe to repeat under the policy.
    case notIdempotent = "not_idempotent"
    /// The server asked for a delay above the policy's cap.
    case retryAfterTooLong = "retry_after_too_long"
    /// The caller cancelled.
    case cancelled
    /// The policy's circuit breaker is open (or half-open with every probe
    /// out): the attempt was not sent.
    case circuitOpen = "circuit_open"
    /// A gRPC server's pushback asked for no retry: its
    /// `grpc-retry-pushback-ms` was negative or not a number (gRFC A6).
    case serverPushback = "server_pushback"

    public var description: String { rawValue }
}

/// What happened on one attempt.
public enum AttemptOutcome: Hashable, Sendable {
    /// A complete response arrived.
    case response(status: Int, headers: ResponseHeaders)
    /// No usable response arrived.
    case transport(TransportFailure)
    /// A result the caller's code classified into a condition the policy
    /// declares (see ``AttemptCondition``).
    case condition(AttemptCondition)
    /// A gRPC call ended with `status`; `metadata` is its trailing
    /// metadata (or the headers of a trailers-only response), where a
    /// server's `grpc-retry-pushback-ms` is read (gRFC A6).
    case grpc(status: GRPCStatusCode, metadata: ResponseHeaders)

    @inlinable
    public static func status(_ status: Int) -> AttemptOutcome { .response(status: status, headers: .none) }

    /// A gRPC status without metadata.
    public static func grpc(_ status: GRPCStatusCode) -> AttemptOutcome { .grpc(status: status, metadata: .none) }
}

/// Everything one decision looks at besides the policy and shared state.
public struct DecisionInput: Hashable, Sendable {
    public var outcome: AttemptOutcome
    /// The attempt that produced `outcome`; 1 is the first try.
    public var attempt: Int
    /// Time since the first attempt started.
    public var elapsed: Duration
    public var method: HTTPMethod
    /// The caller vouches that repeating the request is safe (an idempotency
    /// key is set).
    public var markedIdempotent: Bool
    /// The caller says repeating the request is not safe, whatever its
    /// method: a retry stops with `not_idempotent`.
    public var markedUnsafe: Bool = false
    /// Selects per-endpoint timeout overrides.
    public var endpoint: String?
    /// Wall-clock time of the decision; needed for HTTP-date and Unix-time
    /// headers and for cooldowns.
    public var now: Timestamp?
    /// The delay before the previous retry (decorrelated jitter builds on
    /// it).
    public var previousDelay: Duration?
    /// Budget tokens the previous retry of this request cost (0 if none);
    /// a success refunds it.
    public var lastRetryCost: Int
    /// How many times this request already refreshed credentials.
    public var credentialRefreshes: Int

    public init(
        outcome: AttemptOutcome,
        attempt: Int = 1,
        elapsed: Duration = .zero,
        method: HTTPMethod = .get,
        markedIdempotent: Bool = false,
        endpoint: String? = nil,
        now: Timestamp? = nil,
        previousDelay: Duration? = nil,
        lastRetryCost: Int = 0,
        credentialRefreshes: Int = 0
    ) {
        self.outcome = outcome
        self.attempt = attempt
        self.elapsed = elapsed
        self.method = method
        self.markedIdempotent = markedIdempotent
        self.endpoint = endpoint
        self.now = now
        self.previousDelay = previousDelay
        self.lastRetryCost = lastRetryCost
        self.credentialRefreshes = credentialRefreshes
    }
}

/// The outcome of one decision.
public struct Decision: Hashable, Sendable {
    public enum Action: Hashable, Sendable {
        case success
        case retry(after: Duration)
        case stop(SDKError, StopReason)
    }

    public var action: Action
    /// Index in ``Policy/rules`` of the rule that decided; `nil` when the
    /// default rule or the implicit 2xx success decided.
    public var ruleIndex: Int?
    /// Where the deciding rule (or default) is written.
    public var ruleLocation: SourceLocation?
    /// For a retry: the range the delay was drawn from (equal bounds when
    /// nothing is random).
    package var delayBounds: ClosedRange<Duration>?
    /// For a retry: whether the delay is the server's.
    public var serverDirected: Bool
    /// For a retry: refresh credentials before sending again.
    public var refreshCredentials: Bool
    /// For a retry: budget tokens it cost.
    package var budgetCost: Int
    /// The kind the outcome maps to: the error a stop reports, or the one a
    /// retry would report had it been the last attempt; `nil` for a
    /// success.
    package var errorKind: SDKError.Kind?
    /// For a retry under a budget whose store may wait: the payment the
    /// request state machine hands to its driver (`budgetCost` is what
    /// it will cost); `nil` once paid.
    package var pendingPayment: BudgetPayment.Kind?

    public init(
        action: Action,
        ruleIndex: Int? = nil,
        ruleLocation: SourceLocation? = nil,
        delayBounds: ClosedRange<Duration>? = nil,
        serverDirected: Bool = false,
        refreshCredentials: Bool = false,
        budgetCost: Int = 0,
        errorKind: SDKError.Kind? = nil
    ) {
        self.action = action
        self.ruleIndex = ruleIndex
        self.ruleLocation = ruleLocation
        self.delayBounds = delayBounds
        self.serverDirected = serverDirected
        self.refreshCredentials = refreshCredentials
        self.budgetCost = budgetCost
        if case .stop(let error, _) = action {
            self.errorKind = error.kind
        } else {
            self.errorKind = errorKind
        }
    }

    /// A success decided by the rule at `ruleIndex` (written at
    /// `ruleLocation`), or by no rule. Sets every field directly: the
    /// public initialiser looks into its action for a stop's error kind,
    /// which costs a copy of the action on the hottest path.
    @inline(__always)
    init(successBy ruleIndex: Int?, at ruleLocation: SourceLocation?) {
        self.action = .success
        self.ruleIndex = ruleIndex
        self.ruleLocation = ruleLocation
        self.delayBounds = nil
        self.serverDirected = false
        self.refreshCredentials = false
        self.budgetCost = 0
        self.errorKind = nil
        self.pendingPayment = nil
    }

    public var isRetry: Bool { if case .retry = action { true } else { false } }
    public var error: SDKError? { if case .stop(let error, _) = action { error } else { nil } }
    public var stopReason: StopReason? { if case .stop(_, let reason) = action { reason } else { nil } }
    public var delay: Duration? { if case .retry(let delay) = action { delay } else { nil } }
}
