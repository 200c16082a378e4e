#if Postgres  // the trait; without it this module is empty
import Dispatch
import NIOCore
import RetryPolicyCore

/// Waits on the calling thread, at most `timeout`, for `future`.
///
/// Only a half-open breaker's claim of a fleet-wide probe permit waits
/// so (once per break and process, at most `withdrawTimeout`): admission
/// is synchronous. Budget payments are awaited instead
/// (`PostgresRetryStateStore+Payments.swift`). The
/// future completes on a NIO event loop, never on the caller's thread or
/// the Swift concurrency pool, so a caller on a pool thread cannot starve
/// it; a caller on the future's own event loop gets `nil` at once instead
/// of a deadlock.
enum BoundedWait {
    enum Outcome<Value> {
        case value(Value)
        case failure(any Error)
        case timedOut
    }

    static func wait<Value: Sendable>(
        for future: EventLoopFuture<Value>, timeout: Duration
    ) -> Outcome<Value> {
        if future.eventLoop.inEventLoop { return .timedOut }
        let result = LockedBox<Result<Value, any Error>?>(nil)
        let semaphore = DispatchSemaphore(value: 0)
        future.whenComplete { outcome in
            result.withLock { $0 = outcome }
            semaphore.signal()
        }
        let nanoseconds = Swift.max(0, timeout.nanosecondsClamped)
        if semaphore.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut { return .timedOut }
        switch result.value {
        case .success(let value): return .value(value)
        case .failure(let error): return .failure(error)
        case nil: return .timedOut
        }
    }
}
#endif
