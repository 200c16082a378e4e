import Builtin

/// A 64-bit integer read and written with atomic instructions, for the
/// paths that must not take a lock (the retry budget's withdrawals, the
/// cooldown's "no cooldown" admission).
///
/// `Synchronization.Atomic` does this from iOS 18 and macOS 15 only; the
/// package runs from iOS 16 and macOS 13, so it uses the compiler's atomic
/// instructions directly, as swift-atomics does, with the same orderings
/// and the same machine code. The integer lives in one heap allocation,
/// made once by the initializer; loads, stores and compare-and-swap
/// allocate nothing and never block.
package struct AtomicInt64: @unchecked Sendable {
    package enum LoadOrdering { case relaxed, acquiring }
    package enum StoreOrdering { case relaxed, releasing }
    package enum UpdateOrdering { case relaxed, acquiringAndReleasing }

    private let storage: AtomicInt64Storage

    package init(_ value: Int64) {
        storage = AtomicInt64Storage.make(value)
    }

    @inline(__always)
    package func load(ordering: LoadOrdering) -> Int64 {
        storage.withUnsafeMutablePointerToElements { pointer in
            switch ordering {
            case .relaxed: Int64(Builtin.atomicload_monotonic_Int64(pointer._rawValue))
            case .acquiring: Int64(Builtin.atomicload_acquire_Int64(pointer._rawValue))
            }
        }
    }

    @inline(__always)
    package func store(_ value: Int64, ordering: StoreOrdering) {
        storage.withUnsafeMutablePointerToElements { pointer in
            switch ordering {
            case .relaxed: Builtin.atomicstore_monotonic_Int64(pointer._rawValue, value._value)
            case .releasing: Builtin.atomicstore_release_Int64(pointer._rawValue, value._value)
            }
        }
    }

    /// Replaces the value with `desired` if it is `expected`; returns
    /// whether it did and the value found.
    @inline(__always)
    package func compareExchange(expected: Int64, desired: Int64, ordering: UpdateOrdering)
        -> (exchanged: Bool, original: Int64)
    {
        storage.withUnsafeMutablePointerToElements { pointer in
            switch ordering {
            case .relaxed:
                let (original, exchanged) = Builtin.cmpxchg_monotonic_monotonic_Int64(
                    pointer._rawValue, expected._value, desired._value)
                return (Bool(exchanged), Int64(original))
            case .acquiringAndReleasing:
                let (original, exchanged) = Builtin.cmpxchg_acqrel_acquire_Int64(
                    pointer._rawValue, expected._value, desired._value)
                return (Bool(exchanged), Int64(original))
            }
        }
    }

    /// Adds `delta` (wrapping on overflow); returns the values before and
    /// after.
    @inline(__always)
    @discardableResult
    package func add(_ delta: Int64, ordering: UpdateOrdering) -> (oldValue: Int64, newValue: Int64) {
        storage.withUnsafeMutablePointerToElements { pointer in
            let old: Int64
            switch ordering {
            case .relaxed: old = Int64(Builtin.atomicrmw_add_monotonic_Int64(pointer._rawValue, delta._value))
            case .acquiringAndReleasing: old = Int64(Builtin.atomicrmw_add_acqrel_Int64(pointer._rawValue, delta._value))
            }
            return (old, old &+ delta)
        }
    }
}

/// The integer in the (single) element; no header.
private final class AtomicInt64Storage: ManagedBuffer<Void, Int64> {
    static func make(_ value: Int64) -> AtomicInt64Storage {
        let buffer = create(minimumCapacity: 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { $0.initialize(to: value) }
        }
        return unsafeDowncast(buffer, to: AtomicInt64Storage.self)
    }
}
