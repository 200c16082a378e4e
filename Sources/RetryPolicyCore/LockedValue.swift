#if canImport(Darwin)
internal import Darwin
#elseif canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Android)
internal import Android
#elseif canImport(Bionic)
internal import Bionic
#elseif canImport(WinSDK)
internal import WinSDK
#else
#error("RetryPolicyCore needs a lock: os_unfair_lock, pthread_mutex_t or SRWLOCK")
#endif

/// A value behind a lock, for the package's own shared state.
///
/// `Synchronization.Mutex` does this from iOS 18 and macOS 15 only; the
/// package runs from iOS 16 and macOS 13, so it keeps its own:
/// `os_unfair_lock` on Darwin, `pthread_mutex_t` on Linux and Android,
/// `SRWLOCK` on Windows. The value and the lock live in one heap
/// allocation, made once by the initializer; taking the lock allocates
/// nothing. Unlike `Mutex` it is `Sendable` only when the value is.
package struct LockedValue<Value> {
    private let storage: LockedValueStorage<Value>

    package init(_ value: Value) {
        storage = LockedValueStorage.make(value)
    }

    /// Runs `body` with the value, the lock held.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withLock(body)
    }
}

extension LockedValue: @unchecked Sendable where Value: Sendable {}

/// The value in the header, the lock in the (single) element.
private final class LockedValueStorage<Value>: ManagedBuffer<Value, LockPrimitive> {
    static func make(_ value: Value) -> LockedValueStorage<Value> {
        let buffer = create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { LockPrimitive.initialize($0) }
            return value
        }
        return unsafeDowncast(buffer, to: LockedValueStorage<Value>.self)
    }

    @inline(__always)
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        // `withUnsafeMutablePointers` rethrows untyped errors; the outcome
        // crosses it as a value so that `body`'s error keeps its type.
        let outcome: Swift.Result<Result, Failure> = withUnsafeMutablePointers { value, lock in
            LockPrimitive.lock(lock)
            defer { LockPrimitive.unlock(lock) }
            do throws(Failure) {
                return .success(try body(&value.pointee))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    deinit {
        withUnsafeMutablePointerToElements { LockPrimitive.destroy($0) }
    }
}

#if canImport(Darwin)
typealias LockPrimitive = os_unfair_lock
#elseif canImport(WinSDK)
typealias LockPrimitive = SRWLOCK
#else
typealias LockPrimitive = pthread_mutex_t
#endif

extension LockPrimitive {
    @inline(__always)
    fileprivate static func initialize(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #elseif canImport(WinSDK)
        InitializeSRWLock(lock)
        #else
        let result = pthread_mutex_init(lock, nil)
        precondition(result == 0, "pthread_mutex_init failed")
        #endif
    }

    @inline(__always)
    fileprivate static func destroy(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if !canImport(Darwin) && !canImport(WinSDK)
        let result = pthread_mutex_destroy(lock)
        precondition(result == 0, "pthread_mutex_destroy failed")
        #endif
        lock.deinitialize(count: 1)
    }

    @inline(__always)
    fileprivate static func lock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        #elseif canImport(WinSDK)
        AcquireSRWLockExclusive(lock)
        #else
        let result = pthread_mutex_lock(lock)
        precondition(result == 0, "pthread_mutex_lock failed")
        #endif
    }

    @inline(__always)
    fileprivate static func unlock(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_unlock(lock)
        #elseif canImport(WinSDK)
        ReleaseSRWLockExclusive(lock)
        #else
        let result = pthread_mutex_unlock(lock)
        precondition(result == 0, "pthread_mutex_unlock failed")
        #endif
    }
}
