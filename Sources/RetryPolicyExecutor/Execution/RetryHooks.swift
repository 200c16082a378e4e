import RetryPolicyCore

/// What code adds to a policy for the requests of one `run` call: how to
/// read a result the policy cannot, what to override, and whether to hand
/// back the last response when the policy gives up.
///
/// The hooks run in the caller's isolation, between attempts, so they may
/// capture state that is not `Sendable`.
///
/// ```swift
/// let hooks = RetryHooks<Page, APIError>(classify: { result in
///     // A 200 whose body is a CDN's HTML error page: a condition the
///     // policy declares (`conditions: [malformed_body]`) and decides.
///     if case .success(let page) = result, page.isErrorPage { return .condition("malformed_body") }
///     return nil
/// })
/// ```
public struct RetryHooks<Value, Failure: Error> {
    /// What an attempt's result means to the policy, or `nil` for the
    /// usual reading (a returned ``RetryableResponse`` by its status and
    /// headers, any other returned value as a success, a thrown error
    /// through the executor's ``ErrorClassifier``).
    ///
    /// Prefer returning a declared condition (``AttemptOutcome/condition(_:)``)
    /// to deciding in ``override``: the decision then stays in the policy
    /// file, where lint, `table` and `simulate` see it.
    public var classify: ((Result<Value, Failure>) -> AttemptOutcome?)?
    /// The escape hatch: asked after every attempt the policy does not
    /// treat as a success, it can retry after a delay of its choosing,
    /// stop, or leave the decision to the policy. Invisible to lint and to
    /// every other tool that reads the policy file; the request still
    /// keeps to the policy's attempts, total deadline and budget.
    public var override: ((FailedAttempt<Failure>) -> DecisionOverride)?
    /// When the policy stops on a value the operation returned (a final
    /// 503, say), return that value instead of throwing: the contract of an
    /// HTTP client decorator, and of urllib3's `raise_on_status=False`.
    /// Failures decided on a thrown error still throw.
    public var returnsLastResponse: Bool

    public init(
        classify: ((Result<Value, Failure>) -> AttemptOutcome?)? = nil,
        override: ((FailedAttempt<Failure>) -> DecisionOverride)? = nil,
        returnsLastResponse: Bool = false
    ) {
        self.classify = classify
        self.override = override
        self.returnsLastResponse = returnsLastResponse
    }
}

/// An attempt the policy does not treat as a success, as the override
/// hook sees it.
public struct FailedAttempt<Failure: Error> {
    /// 1 for the first try.
    public var number: Int
    /// What the attempt meant to the policy.
    public var outcome: AttemptOutcome
    /// What the operation threw, when it threw an error of its own type.
    public var thrown: Failure?

    public init(number: Int, outcome: AttemptOutcome, thrown: Failure? = nil) {
        self.number = number
        self.outcome = outcome
        self.thrown = thrown
    }
}
