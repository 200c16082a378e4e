#if Postgres  // the trait; without it this module is empty
import RetryPolicyCore

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
