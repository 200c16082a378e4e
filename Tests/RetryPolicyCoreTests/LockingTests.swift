import RetryPolicyCore
import Testing

/// The package's lock and atomic integer, which stand in for
/// `Synchronization.Mutex` and `Atomic` below iOS 18 and macOS 15.
@Suite("LockedValue and AtomicInt64")
struct LockingTests {
    private struct Failure: Error, Equatable { var code: Int }

    @Test("Concurrent updates under the lock add up exactly")
    func lockedValueSerializesUpdates() async {
        let counts = LockedValue<[Int: Int]>([:])
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<2_000 { counts.withLock { $0[task % 2, default: 0] += 1 } }
                }
            }
        }
        #expect(counts.withLock { $0 } == [0: 8_000, 1: 8_000])
    }

    @Test("An error thrown under the lock keeps its type, and the lock is released")
    func lockedValuePassesTypedErrors() {
        let value = LockedValue(1)
        let thrown = #expect(throws: Failure.self) {
            try value.withLock { (number: inout Int) throws(Failure) -> Void in
                number = 2
                throw Failure(code: 7)
            }
        }
        #expect(thrown == Failure(code: 7))
        // The mutation made before the throw stays; the lock can be taken again.
        #expect(value.withLock { $0 } == 2)
    }

    @Test("Concurrent additions and compare-and-swap loops lose nothing")
    func atomicAddsUp() async {
        let added = AtomicInt64(0)
        let swapped = AtomicInt64(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<2_000 {
                        added.add(1, ordering: .relaxed)
                        var current = swapped.load(ordering: .relaxed)
                        while true {
                            let (exchanged, original) = swapped.compareExchange(
                                expected: current, desired: current + 3, ordering: .acquiringAndReleasing)
                            if exchanged { break }
                            current = original
                        }
                    }
                }
            }
        }
        #expect(added.load(ordering: .acquiring) == 16_000)
        #expect(swapped.load(ordering: .acquiring) == 48_000)
    }

    @Test("Load, store, add and compare-and-swap")
    func atomicOperations() {
        let value = AtomicInt64(.min)
        #expect(value.load(ordering: .relaxed) == .min)
        value.store(41, ordering: .releasing)
        #expect(value.add(1, ordering: .relaxed) == (oldValue: 41, newValue: 42))
        #expect(value.compareExchange(expected: 0, desired: 5, ordering: .acquiringAndReleasing) == (false, 42))
        #expect(value.compareExchange(expected: 42, desired: 5, ordering: .relaxed) == (true, 42))
        #expect(value.load(ordering: .acquiring) == 5)
        value.store(.max, ordering: .relaxed)
        #expect(value.add(1, ordering: .acquiringAndReleasing).newValue == .min)
    }
}
