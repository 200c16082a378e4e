/// The error an executor throws: the ``SDKError`` the policy chose, why
/// the executor stopped, and every attempt that led there.
///
/// Callers that only care about the taxonomy switch on `error.kind`; tools
/// and logs use `attempts` to explain the failure.
///
/// A value with copy-on-write storage: every async function that can throw
/// it reserves room for one in its frame, on the success path too, so it
/// is kept to a single reference.
public struct RetryFailure: Error, Sendable, CustomStringConvertible {
    /// The error the policy chose for the last attempt (or for the
    /// cancellation or cooldown that prevented one).
    public var error: SDKError {
        get { storage.error }
        set { mutableStorage().error = newValue }
    }
    public var reason: StopReason {
        get { storage.reason }
        set { mutableStorage().reason = newValue }
    }
    /// Every attempt, in order. Empty when no attempt was sent (a cooldown
    /// rejected the request, or it was cancelled before the first try).
    public var attempts: [AttemptRecord] {
        get { storage.attempts }
        set { mutableStorage().attempts = newValue }
    }
    /// The last response the operation returned, when the failure was
    /// decided on a response (a final 503 still has a body worth showing).
    public var lastResponse: (any Sendable)? {
        get { storage.lastResponse }
        set { mutableStorage().lastResponse = newValue }
    }
    /// The last error the operation threw, when it threw.
    public var underlyingError: (any Error)? {
        get { storage.underlyingError }
        set { mutableStorage().underlyingError = newValue }
    }

    public init(
        error: SDKError,
        reason: StopReason,
        attempts: [AttemptRecord] = [],
        lastResponse: (any Sendable)? = nil,
        underlyingError: (any Error)? = nil
    ) {
        storage = Storage(
            error: error, reason: reason, attempts: attempts, lastResponse: lastResponse,
            underlyingError: underlyingError)
    }

    public var kind: SDKError.Kind { error.kind }

    public var description: String {
        "\(error.message) (\(reason.rawValue) after \(plural(attempts.count, "attempt")))"
    }

    private var storage: Storage

    private mutating func mutableStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Mutated only through a unique reference (copy on write), so sharing
    /// it between copies of the failure is safe.
    private final class Storage: @unchecked Sendable {
        var error: SDKError
        var reason: StopReason
        var attempts: [AttemptRecord]
        var lastResponse: (any Sendable)?
        var underlyingError: (any Error)?

        init(
            error: SDKError, reason: StopReason, attempts: [AttemptRecord], lastResponse: (any Sendable)?,
            underlyingError: (any Error)?
        ) {
            self.error = error
            self.reason = reason
            self.attempts = attempts
            self.lastResponse = lastResponse
            self.underlyingError = underlyingError
        }

        func copy() -> Storage {
            Storage(
                error: error, reason: reason, attempts: attempts, lastResponse: lastResponse,
                underlyingError: underlyingError)
        }
    }
}
