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
    ///
    /// When the policy gave no detail, the detail is the text of the
    /// operation's error, made when read rather than on every failure.
    public var error: SDKError {
        get {
            var error = storage.error
            if storage.describesUnderlyingError, error.detail == nil, let thrown = storage.underlyingError {
                error.detail = String(describing: thrown)
            }
            return error
        }
        set {
            let storage = mutableStorage()
            storage.error = newValue
            storage.describesUnderlyingError = false
        }
    }
    public var reason: StopReason {
        get { storage.reason }
        set { mutableStorage().reason = newValue }
    }
    /// Every attempt, in order. Empty when no attempt was sent (a cooldown
    /// rejected the request, or it was cancelled while waiting for its
    /// first try).
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
        set {
            // The detail stays the text of the error it was made from.
            let described = error
            let storage = mutableStorage()
            storage.error = described
            storage.describesUnderlyingError = false
            storage.underlyingError = newValue
        }
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

    /// A failure whose error, when it has no detail, is described by
    /// `underlyingError`'s text, made only when someone reads it.
    init(error: SDKError, reason: StopReason, attempts: [AttemptRecord], describing underlyingError: (any Error)?) {
        storage = Storage(
            error: error, reason: reason, attempts: attempts, lastResponse: nil, underlyingError: underlyingError)
        storage.describesUnderlyingError = underlyingError != nil
    }

    public var kind: SDKError.Kind { storage.error.kind }

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
        /// `error` lacks the detail `underlyingError`'s text gives it.
        var describesUnderlyingError = false

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
            let copy = Storage(
                error: error, reason: reason, attempts: attempts, lastResponse: lastResponse,
                underlyingError: underlyingError)
            copy.describesUnderlyingError = describesUnderlyingError
            return copy
        }
    }
}
