#if GRPC  // the trait; without it this module is empty
import GRPCCore
import RetryPolicyCore

/// How a call's attempts ended, for a reader of the response that was
/// cancelled before the response stream could tell it: the error the call
/// ends with (its `cause` the `RetryFailure`), or `nil` when an attempt's
/// response was handed over.
///
/// A cancelled reader of an `AsyncThrowingStream` gets `nil` at once, and
/// what the attempts end with is dropped; the reader waits here instead,
/// for a moment only: the attempts run in a child task of the same call,
/// which the same cancellation ends.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class CallEnding: Sendable {
    private enum State {
        case running(waiters: [CheckedContinuation<RPCError?, Never>])
        case ended(RPCError?)
    }

    private let state = LockedValue(State.running(waiters: []))

    init() {}

    /// Records the end, once; later calls change nothing.
    func end(with error: RPCError?) {
        let waiters = state.withLock { state -> [CheckedContinuation<RPCError?, Never>] in
            guard case .running(let waiters) = state else { return [] }
            state = .ended(error)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: error) }
    }

    /// The error the call ended with, once it has ended.
    func error() async -> RPCError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<RPCError?, Never>) in
            let ended = state.withLock { state -> RPCError?? in
                switch state {
                case .running(var waiters):
                    waiters.append(continuation)
                    state = .running(waiters: waiters)
                    return .none
                case .ended(let error):
                    return .some(error)
                }
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }
}
#endif
