import RetryPolicyCore

/// An error that already knows what it means to a policy.
///
/// Adapters throw these so that the executor's classifier needs no
/// knowledge of their types; an app's own error enum can adopt it too.
public protocol AttemptOutcomeConvertible: Error {
    var attemptOutcome: AttemptOutcome { get }
}

/// A transport failure as an error, for operations that detect one
/// themselves (a missing network, a response that could not be decoded).
public struct TransportError: AttemptOutcomeConvertible, Hashable, Sendable, CustomStringConvertible {
    public var failure: TransportFailure
    public var detail: String?

    public init(_ failure: TransportFailure, detail: String? = nil) {
        self.failure = failure
        self.detail = detail
    }

    public var attemptOutcome: AttemptOutcome { .transport(failure) }
    public var description: String { detail.map { "\(failure.rawValue): \($0)" } ?? failure.rawValue }
}

/// A complete response an operation chose to throw rather than return
/// (the seed TMDb client throws `tooManyRequests`); the policy judges it by
/// status and headers exactly as if it had been returned.
public struct HTTPStatusError: AttemptOutcomeConvertible, Hashable, Sendable, CustomStringConvertible {
    public var status: Int
    public var headers: ResponseHeaders

    public init(status: Int, headers: ResponseHeaders = .none) {
        self.status = status
        self.headers = headers
    }

    public var attemptOutcome: AttemptOutcome { .response(status: status, headers: headers) }
    public var description: String { "HTTP \(status)" }
}
