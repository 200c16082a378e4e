#if os(Linux)
import AllocationCounting

/// Counts the heap allocations one thread makes while running a closure.
///
/// The claim "deciding performs no heap allocation" is only worth something
/// if a test can catch a regression, and glibc keeps no allocation count
/// (`mallinfo2()` reports bytes in use, so an allocation freed before the
/// measurement ends is invisible). So this test binary defines `malloc`
/// itself (Tests/AllocationCounting): the executable's definition takes
/// precedence over libc's for every library in the process, including the
/// Swift runtime, whose `swift_slowAlloc` is where every class instance,
/// array and string buffer comes from. Only calls on the measured thread
/// are counted, so tests running in parallel on other threads are neither
/// counted nor disturbed.
enum AllocationCounter {
    /// Runs `body` on the current thread and returns how many times it (and
    /// everything it called) asked the allocator for memory.
    static func allocations(in body: () -> Void) -> Int {
        allocation_counting_begin()
        body()
        return allocation_counting_end()
    }
}
#endif
