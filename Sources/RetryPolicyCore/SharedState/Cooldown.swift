/// A server-directed pause shared by every request under a policy.
///
/// When a 429 or 503 carries `Retry-After`, the server has said "not before
/// then" to this client, not only to this request; the admission check lets
/// even a single-attempt policy respect that.
///
/// With a ``RetryStateStore`` the cooldown is shared under ``key``: a
/// cooldown recorded here is handed to the store, and the store applies
/// cooldowns recorded elsewhere with ``apply(until:error:)``. Admission
/// always reads the local state only.
public final class CooldownGate: Sendable {
    private struct State {
        var until: Timestamp
        var error: SDKError?
    }

    private let state = LockedValue(State(until: Timestamp(nanosecondsSince1970: .min), error: nil))
    /// The same deadline as `state.until`, readable without the lock so the
    /// common "no cooldown" admission costs one atomic load.
    private let untilNanoseconds = AtomicInt64(.min)

    /// The key the cooldown is shared under, when it has a store.
    public let key: String?
    /// Where the cooldown is shared; `nil` keeps it in this process.
    public let store: (any RetryStateStore)?

    public init() {
        key = nil
        store = nil
    }

    /// A gate shared through `store` under `key`.
    public init(store: any RetryStateStore, key: String) {
        self.key = key
        self.store = store
    }

    /// Extends the cooldown to `until` (never shortens it), and shares the
    /// extension through the store, if any.
    package func record(until: Timestamp, error: SDKError) {
        if apply(until: until, error: error), let store {
            store.cooldownRecorded(until: until, error: error, by: self)
        }
    }

    /// Extends the local cooldown to `until` (never shortens it) without
    /// sharing it: how a store applies a cooldown recorded elsewhere.
    /// Returns whether the cooldown was extended.
    @discardableResult
    public func apply(until: Timestamp, error: SDKError) -> Bool {
        state.withLock { state in
            guard until > state.until else { return false }
            state.until = until
            state.error = error
            untilNanoseconds.store(until.nanosecondsSince1970, ordering: .releasing)
            return true
        }
    }

    /// The end of the cooldown and the error that started it, if one is
    /// active at `now`.
    public func active(at now: Timestamp) -> (until: Timestamp, error: SDKError)? {
        if untilNanoseconds.load(ordering: .acquiring) <= now.nanosecondsSince1970 { return nil }
        return state.withLock { state in
            guard state.until > now, let error = state.error else { return nil }
            return (state.until, error)
        }
    }

    /// Ends any cooldown (an operator override, or tests).
    public func reset() {
        state.withLock { state in
            state = State(until: Timestamp(nanosecondsSince1970: .min), error: nil)
            untilNanoseconds.store(.min, ordering: .releasing)
        }
    }
}
