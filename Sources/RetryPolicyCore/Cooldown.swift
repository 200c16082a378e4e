import Synchronization

/// A server-directed pause shared by every request under a policy.
///
/// When a 429 or 503 carries `Retry-After`, the server has said "not before
/// then" to this client, not only to this request; the admission check lets
/// even a single-attempt policy respect that.
public final class CooldownGate: Sendable {
    private struct State {
        var until: Timestamp
        var error: SDKError?
    }

    private let state = Mutex(State(until: Timestamp(nanosecondsSince1970: .min), error: nil))
    /// The same deadline as `state.until`, readable without the lock so the
    /// common "no cooldown" admission costs one atomic load.
    private let untilNanoseconds = Atomic<Int64>(.min)

    public init() {}

    /// Extends the cooldown to `until` (never shortens it).
    public func record(until: Timestamp, error: SDKError) {
        state.withLock { state in
            if until > state.until {
                state.until = until
                state.error = error
                untilNanoseconds.store(until.nanosecondsSince1970, ordering: .releasing)
            }
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

/// The answer to "may an attempt start now?".
public enum Admission: Hashable, Sendable {
    case proceed
    /// A cooldown is active and the policy says to wait it out.
    case wait(Duration)
    /// A cooldown is active and the policy says to fail fast; no request is
    /// sent.
    case reject(SDKError)
}
