import RetryPolicyCore

/// Turns an error an operation threw into what a policy judges.
///
/// Every client library has its own error types; a policy speaks only of
/// statuses and `TransportFailure` classes. A classifier is the one place
/// that translation lives, so adapters can be composed: the URLSession
/// adapter's classifier in front of the standard one, say.
public struct ErrorClassifier: Sendable {
    private let classify: @Sendable (any Error) -> AttemptOutcome?
    /// Whether `outcome(for:)` asks the standard classifier after this
    /// one: not when this one is the standard one, which would ask twice
    /// (each time a dynamic cast) about every error it does not know.
    private let fallsBackToStandard: Bool

    /// - Parameter classify: returns `nil` for errors it does not
    ///   recognise, so that a chained classifier can try.
    public init(_ classify: @escaping @Sendable (any Error) -> AttemptOutcome?) {
        self.classify = classify
        fallsBackToStandard = true
    }

    private init(fallsBackToStandard: Bool, _ classify: @escaping @Sendable (any Error) -> AttemptOutcome?) {
        self.classify = classify
        self.fallsBackToStandard = fallsBackToStandard
    }

    /// Recognises ``AttemptOutcomeConvertible`` errors and
    /// `CancellationError`; anything else is `TransportFailure.unknown`.
    public static let standard = ErrorClassifier(fallsBackToStandard: false, { error in
        if let convertible = error as? any AttemptOutcomeConvertible { return convertible.attemptOutcome }
        if error is CancellationError { return .transport(.cancelled) }
        return nil
    })

    /// Tries `self`, then `fallback`.
    package func chained(with fallback: ErrorClassifier) -> ErrorClassifier {
        ErrorClassifier { error in self.classify(error) ?? fallback.classify(error) }
    }

    /// The outcome for `error`; unrecognised errors are `unknown`
    /// transport failures, which a policy can still name in a rule.
    public func outcome(for error: any Error) -> AttemptOutcome {
        if let outcome = classify(error) { return outcome }
        if fallsBackToStandard, let outcome = Self.standard.classify(error) { return outcome }
        return .transport(.unknown)
    }
}
