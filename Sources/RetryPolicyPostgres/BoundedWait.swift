#if Postgres  // the trait; without it this module is empty
import Dispatch
import NIOCore
import RetryPolicyCore

/// Waits on the calling thread, at most `timeout`, for `future`.
///
/// The retry decision is synchronous, so paying for a retry from the
/// shared budget blocks the deciding thread for one round trip. The
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

extension Duration {
    var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? .max : sum
    }

    var timeAmount: TimeAmount { .nanoseconds(nanosecondsClamped) }

    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// A value behind a lock that closures can share.
final class LockedBox<Value: Sendable>: Sendable {
    private let mutex: LockedValue<Value>

    init(_ value: Value) { mutex = LockedValue(value) }

    var value: Value { mutex.withLock { $0 } }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }
}
#endif
