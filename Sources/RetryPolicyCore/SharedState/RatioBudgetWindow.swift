import Builtin

/// The expiring deposits and withdrawals of a ratio budget: a fixed ring
/// of ten time slots, each one atomic integer, so recording and deciding
/// never lock and never allocate, and memory stays the same however many
/// requests pass.
///
/// Each slot packs the number of the time slot it holds (its low 24 bits)
/// above a signed 40-bit sum of thousandths of a retry; a slot whose
/// number is not one of the last ten no longer counts, and the next
/// amount recorded in it starts it over. Amounts saturate at ±2^39.
///
/// As in Finagle's `RetryBudget`, checking the balance and withdrawing
/// are two atomic steps, not one: concurrent retries may each see the
/// same last retry's worth and overdraw by at most one retry each.
///
/// `@unchecked Sendable`: every slot is read and written only with
/// atomic instructions.
package final class RatioBudgetWindow: @unchecked Sendable {
    package static let slotCount = 10
    /// How long one slot lasts, in nanoseconds.
    package let slotNanoseconds: Int64
    private let storage: RatioBudgetWindowStorage

    private static let amountBits: Int64 = 40
    private static let amountMask: Int64 = (1 << amountBits) - 1
    private static let tagMask: Int64 = (1 << 24) - 1
    private static let maximumAmount: Int64 = (1 << (amountBits - 1)) - 1

    package init(window: Duration) {
        slotNanoseconds = Swift.max(window.nanosecondsSaturated / Int64(Self.slotCount), 1)
        storage = RatioBudgetWindowStorage.make(slots: Self.slotCount)
    }

    /// The slot number of `now`; `nil` reads the latest slot seen. Time
    /// never goes back: an earlier instant (another request's clock)
    /// counts in the latest slot.
    package func slot(at now: Timestamp?) -> Int64 {
        let latest = storage.latest
        guard let now else { return latest.load() }
        let slot = Swift.max(now.nanosecondsSince1970, 0) / slotNanoseconds
        var current = latest.load()
        while slot > current {
            let (exchanged, original) = latest.compareExchange(expected: current, desired: slot)
            if exchanged { return slot }
            current = original
        }
        return current
    }

    /// The sum of the amounts still in the window at slot `slot`.
    package func balance(at slot: Int64) -> Int64 {
        var sum: Int64 = 0
        for index in 0..<Self.slotCount {
            let packed = storage.slot(index).load()
            // The one slot number in the last ten that lands at `index`.
            let alive = slot - Self.ringIndex(slot - Int64(index))
            guard packed >> Self.amountBits & Self.tagMask == alive & Self.tagMask else { continue }
            sum = Self.saturating(sum, Self.amount(of: packed))
        }
        return sum
    }

    /// Adds `amount` (negative for a withdrawal) to slot `slot`.
    package func add(_ amount: Int64, at slot: Int64) {
        let cell = storage.slot(Int(Self.ringIndex(slot)))
        let tag = slot & Self.tagMask
        var current = cell.load()
        while true {
            let held = current >> Self.amountBits & Self.tagMask
            // A slot another request already moved past this one keeps its
            // number; the amount counts there.
            let newer = held != tag && (held &- tag) & Self.tagMask < 1 << 23 && current != 0
            let base: Int64 = (held == tag || newer) ? Self.amount(of: current) : 0
            let desired = (newer ? held : tag) << Self.amountBits | Self.saturating(base, amount) & Self.amountMask
            let (exchanged, original) = cell.compareExchange(expected: current, desired: desired)
            if exchanged { return }
            current = original
        }
    }

    /// Empties every slot (a store that learns the shared state replaces
    /// this process's view with it).
    package func reset() {
        for index in 0..<Self.slotCount { storage.slot(index).store(0) }
    }

    /// `value` modulo the slot count, never negative.
    private static func ringIndex(_ value: Int64) -> Int64 {
        let remainder = value % Int64(slotCount)
        return remainder < 0 ? remainder + Int64(slotCount) : remainder
    }

    private static func amount(of packed: Int64) -> Int64 {
        // Sign-extend the low 40 bits.
        (packed << (64 - amountBits)) >> (64 - amountBits)
    }

    private static func saturating(_ lhs: Int64, _ rhs: Int64) -> Int64 {
        let (sum, overflow) = lhs.addingReportingOverflow(rhs)
        let value = overflow ? (rhs < 0 ? Int64.min : Int64.max) : sum
        return Swift.min(Swift.max(value, -maximumAmount), maximumAmount)
    }
}

/// The ring and the latest slot number, in one allocation: element 0 is
/// the latest slot seen, elements 1... the slots.
private final class RatioBudgetWindowStorage: ManagedBuffer<Int, Int64> {
    static func make(slots: Int) -> RatioBudgetWindowStorage {
        let buffer = create(minimumCapacity: slots + 1) { buffer in
            buffer.withUnsafeMutablePointerToElements { $0.initialize(repeating: 0, count: slots + 1) }
            return slots + 1
        }
        return unsafeDowncast(buffer, to: RatioBudgetWindowStorage.self)
    }

    deinit {
        _ = withUnsafeMutablePointers { header, elements in elements.deinitialize(count: header.pointee) }
    }

    var latest: Cell { Cell(storage: self, index: 0) }
    func slot(_ index: Int) -> Cell { Cell(storage: self, index: index + 1) }

    /// One element, read and written atomically.
    struct Cell {
        let storage: RatioBudgetWindowStorage
        let index: Int

        @inline(__always)
        func load() -> Int64 {
            storage.withUnsafeMutablePointerToElements { pointer in
                Int64(Builtin.atomicload_acquire_Int64((pointer + index)._rawValue))
            }
        }

        @inline(__always)
        func store(_ value: Int64) {
            storage.withUnsafeMutablePointerToElements { pointer in
                Builtin.atomicstore_release_Int64((pointer + index)._rawValue, value._value)
            }
        }

        @inline(__always)
        func compareExchange(expected: Int64, desired: Int64) -> (exchanged: Bool, original: Int64) {
            storage.withUnsafeMutablePointerToElements { pointer in
                let (original, exchanged) = Builtin.cmpxchg_acqrel_acquire_Int64(
                    (pointer + index)._rawValue, expected._value, desired._value)
                return (Bool(exchanged), Int64(original))
            }
        }
    }
}
