#if os(Linux)
import Glibc
import Synchronization

/// Counts the heap allocations one thread makes while running a closure.
///
/// The claim "deciding performs no heap allocation" is only worth something
/// if a test can catch a regression, and glibc keeps no allocation count
/// (`mallinfo2()` reports bytes in use, so an allocation freed before the
/// measurement ends is invisible). So this test binary defines `malloc`
/// itself: the executable's definition takes precedence over libc's for
/// every library in the process, including the Swift runtime, whose
/// `swift_slowAlloc` is where every class instance, array and string buffer
/// comes from. The hook counts a call only when it happens on the thread
/// being measured, then forwards to the real allocator, so tests running in
/// parallel on other threads are neither counted nor disturbed.
///
/// The real allocator is glibc's `__libc_malloc`, or, in a build with
/// AddressSanitizer or ThreadSanitizer, the sanitizer's own `malloc`
/// (the sanitizer then still owns every block, so its `free` stays valid).
enum AllocationCounter {
    /// The measured thread (`pthread_self()`), or 0 when nothing is measured.
    fileprivate static let measuredThread = Atomic<UInt>(0)
    fileprivate static let count = Atomic<Int>(0)

    /// Runs `body` on the current thread and returns how many times it (and
    /// everything it called) asked the allocator for memory.
    static func allocations(in body: () -> Void) -> Int {
        _ = realMalloc  // resolve the forward target before measuring
        count.store(0, ordering: .sequentiallyConsistent)
        measuredThread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
        body()
        measuredThread.store(0, ordering: .sequentiallyConsistent)
        return count.load(ordering: .sequentiallyConsistent)
    }
}

private typealias MallocFunction = @convention(c) (Int) -> UnsafeMutableRawPointer?

@_silgen_name("__libc_malloc")
private func libcMalloc(_ size: Int) -> UnsafeMutableRawPointer?

/// 0: not resolved, 1: resolving, 2: resolved.
private let resolution = Atomic<Int>(0)
nonisolated(unsafe) private var sanitizerMalloc: MallocFunction?

/// The allocator to forward to. Resolved on first use; while resolving
/// (`dlsym` may itself allocate when the symbol is missing), glibc's
/// allocator serves, which is the right one whenever the sanitizer symbol is
/// missing.
private var realMalloc: MallocFunction? {
    switch resolution.load(ordering: .acquiring) {
    case 2:
        return sanitizerMalloc
    case 0 where resolution.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged:
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "___interceptor_malloc") {
            sanitizerMalloc = unsafeBitCast(symbol, to: MallocFunction.self)
        }
        resolution.store(2, ordering: .releasing)
        return sanitizerMalloc
    default:
        return nil
    }
}

@_cdecl("malloc")
public func countingMalloc(_ size: Int) -> UnsafeMutableRawPointer? {
    let measured = AllocationCounter.measuredThread.load(ordering: .relaxed)
    if measured != 0 && measured == UInt(pthread_self()) {
        AllocationCounter.count.add(1, ordering: .relaxed)
    }
    if let realMalloc { return realMalloc(size) }
    return libcMalloc(size)
}
#endif
