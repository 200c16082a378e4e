/// The requests in flight of ``SimulatedTraffic``, each in a numbered
/// slot; a finished request's slot is reused.
///
/// Slots live in fixed-size chunks, so that growing to a million requests
/// in flight never copies them all into a buffer twice the size (which
/// would hold both at once at the peak).
struct RequestSlots<Element> {
    private static var chunkShift: Int { 12 }
    private static var chunkSize: Int { 1 << chunkShift }
    private static var chunkMask: Int { chunkSize - 1 }

    private var chunks: [[Element?]] = []
    private var count = 0
    private var free: [Int] = []

    /// Takes the element out of `slot`; the slot stays reserved until it
    /// is stored again or released.
    mutating func take(_ slot: Int) -> Element? {
        chunks[slot >> Self.chunkShift][slot & Self.chunkMask].take()
    }

    /// Puts `element` in `slot`, or in a free slot when `slot` is `nil`;
    /// returns the slot.
    mutating func store(_ element: consuming Element, in slot: Int?) -> Int {
        let index: Int
        if let slot {
            index = slot
        } else if let reused = free.popLast() {
            index = reused
        } else {
            index = count
            count += 1
            if index & Self.chunkMask == 0 {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
            }
            chunks[index >> Self.chunkShift].append(nil)
        }
        chunks[index >> Self.chunkShift][index & Self.chunkMask] = element
        return index
    }

    /// Puts `element` in slot `index`, growing to it if needed: for a store
    /// kept beside another, under the other's slots (its own free slots
    /// unused).
    mutating func store(_ element: consuming Element, at index: Int) {
        while count <= index {
            if count & Self.chunkMask == 0 {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
            }
            chunks[count >> Self.chunkShift].append(nil)
            count += 1
        }
        chunks[index >> Self.chunkShift][index & Self.chunkMask] = element
    }

    /// Frees a slot whose element was taken out.
    mutating func release(_ slot: Int) {
        free.append(slot)
    }
}
