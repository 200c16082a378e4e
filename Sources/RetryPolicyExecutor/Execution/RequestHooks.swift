import RetryPolicyCore

/// What the caller said about one request, fixed by the form of `run` it
/// called and the arguments it passed: how a returned value is read, what a
/// failure keeps, and whether attempts may run side by side. Both drivers
/// (sequential and hedged) and the steps they share take it, with the
/// caller's own `classify` and `override` folded into one judging closure
/// beside it (see `judge(_:attempt:judged:decider:classifier:method:classify:override:)`).
///
/// Plain functions and flags only, so that holding it costs nothing. The
/// caller's closures are not stored in it: they are non-escaping, and stay
/// so.
@usableFromInline
struct RequestHooks<Value> {
    /// What a returned value means when the caller's `classify` says
    /// nothing: a response is read by status and headers, any other value
    /// is a success.
    @usableFromInline let reading: (RetryDecider, Value) -> AttemptOutcome
    /// The status `reading` would give, without the headers.
    @usableFromInline let status: (Value) -> Int
    /// The form of a returned value a `RetryFailure` carries.
    @usableFromInline let keep: (Value) -> (any Sendable)?
    /// When the policy stops on a returned value, return it rather than
    /// throw (the decorator's contract).
    @usableFromInline let returnsLastResponse: Bool
    /// Whether the driver can run copies side by side (a hedging policy
    /// hedges only then).
    @usableFromInline var concurrentAttempts = false

    @inlinable
    init(
        reading: @escaping (RetryDecider, Value) -> AttemptOutcome,
        status: @escaping (Value) -> Int,
        keep: @escaping (Value) -> (any Sendable)?,
        returnsLastResponse: Bool
    ) {
        self.reading = reading
        self.status = status
        self.keep = keep
        self.returnsLastResponse = returnsLastResponse
    }

    /// Any returned value is a success; a failure cannot carry it.
    @inlinable
    static func plain(returnsLastResponse: Bool) -> Self {
        Self(reading: { _, _ in .status(200) }, status: { _ in 200 }, keep: { _ in nil }, returnsLastResponse: returnsLastResponse)
    }

    /// What the caller's code and the policy make of one attempt.
    @usableFromInline
    struct Judgement {
        @usableFromInline var outcome: AttemptOutcome
        @usableFromInline var override: DecisionOverride
        /// A returned value the policy treats as a plain success (see
        /// `RetryDecider.isPlainSuccess(_:method:)`), as judged: the caller's
        /// `override` was not asked.
        @usableFromInline var isPlainSuccess = false

        @inlinable
        init(outcome: AttemptOutcome, override: DecisionOverride, isPlainSuccess: Bool = false) {
            self.outcome = outcome
            self.override = override
            self.isPlainSuccess = isPlainSuccess
        }
    }

    /// Judges an attempt's result: the caller's `classify` first, then the
    /// reading above (a returned value) or the executor's classifier (a
    /// thrown error); then, for the attempt the machine runs one at a time
    /// (`number`), the caller's `override`, asked only about an attempt the
    /// policy does not treat as a plain success. `judged` is what a
    /// returned value already meant, when the first try asked.
    @inlinable
    func judge<Failure: Error>(
        typed result: Result<Value, Failure>,
        attempt number: Int?,
        judged: AttemptOutcome?,
        decider: RetryDecider,
        classifier: ErrorClassifier,
        method: HTTPMethod,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride
    ) -> Judgement {
        switch result {
        case .success(let value):
            let outcome = judged ?? classify(.success(value)) ?? reading(decider, value)
            let isPlainSuccess = decider.isPlainSuccess(outcome, method: method)
            guard let number, !isPlainSuccess else {
                return Judgement(outcome: outcome, override: .asPolicySays, isPlainSuccess: isPlainSuccess)
            }
            return Judgement(outcome: outcome, override: override(FailedAttempt(number: number, outcome: outcome)))
        case .failure(let error):
            let outcome = classify(.failure(error)) ?? classifier.outcome(for: error)
            guard let number else { return Judgement(outcome: outcome, override: .asPolicySays) }
            // The outcome moves into the attempt the caller's `override`
            // sees and back out of it, uncopied.
            let failed = FailedAttempt(number: number, outcome: outcome, thrown: error)
            let decision = override(failed)
            return Judgement(outcome: failed.outcome, override: decision)
        }
    }

    /// The same for a result whose error lost its type on the way (an
    /// attempt run in a child task): cast back once, since `classify` and
    /// `override` both take the caller's own error type.
    @inlinable
    func judge<Failure: Error>(
        _ result: Result<Value, any Error>,
        attempt number: Int?,
        judged: AttemptOutcome?,
        decider: RetryDecider,
        classifier: ErrorClassifier,
        method: HTTPMethod,
        classify: (Result<Value, Failure>) -> AttemptOutcome?,
        override: (FailedAttempt<Failure>) -> DecisionOverride
    ) -> Judgement {
        let typed: Result<Value, Failure>
        switch result {
        case .success(let value):
            typed = .success(value)
        case .failure(let error):
            guard let error = error as? Failure else {
                let outcome = classifier.outcome(for: error)
                guard let number else { return Judgement(outcome: outcome, override: .asPolicySays) }
                return Judgement(outcome: outcome, override: override(FailedAttempt(number: number, outcome: outcome)))
            }
            typed = .failure(error)
        }
        return judge(
            typed: typed, attempt: number, judged: judged, decider: decider, classifier: classifier, method: method,
            classify: classify, override: override)
    }
}

extension RequestHooks where Value: Sendable {
    /// Any returned value is a success; a failure carries the last one.
    @inlinable
    static func sendable(returnsLastResponse: Bool) -> Self {
        Self(reading: { _, _ in .status(200) }, status: { _ in 200 }, keep: { $0 }, returnsLastResponse: returnsLastResponse)
    }
}

extension RequestHooks where Value: RetryableResponse {
    /// A response is read by its status and the headers the policy reads.
    @inlinable
    static func response(returnsLastResponse: Bool) -> Self {
        Self(reading: { $0.outcome(for: $1) }, status: { $0.statusCode }, keep: { $0 }, returnsLastResponse: returnsLastResponse)
    }
}
