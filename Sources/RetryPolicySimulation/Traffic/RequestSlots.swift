/// The requests in flight of ``SimulatedTraffic``, each in a numbered
/// slot with its id and the time of its next event; a finished request's
/// slot is reused.
///
/// Slots live in fixed-size chunks, so that growing to a million requests
/// in flight never copies them all into a buffer twice the size (which
/// would hold both at once at the peak).
struct RequestSlots {
    private static let chunkShift = 12
    private static let chunkSize = 1 << chunkShift
    private static let chunkMask = chunkSize - 1

    private var requests: [[SimulatedRequest?]] = []
    private var ids: [Int] = []
    private var scheduled: [Duration] = []
    private var free: [Int] = []

    /// Takes the request out of `slot` if it is request `id` and its next
    /// event is at `time`; the slot stays reserved until it is stored
    /// again or released.
    mutating func take(_ slot: Int, id: Int, at time: Duration) -> SimulatedRequest? {
        guard ids[slot] == id, scheduled[slot] == time else { return nil }
        return requests[slot >> Self.chunkShift][slot & Self.chunkMask].take()
    }

    /// Puts `request` (request `id`, next due at `next`) back in `slot`,
    /// or in a free slot when `slot` is `nil`; returns the slot.
    mutating func store(_ request: consuming SimulatedRequest, id: Int, next: Duration, in slot: Int?) -> Int {
        let index: Int
        if let slot {
            index = slot
        } else if let reused = free.popLast() {
            index = reused
        } else {
            index = ids.count
            if index & Self.chunkMask == 0 {
                requests.append([])
                requests[requests.count - 1].reserveCapacity(Self.chunkSize)
            }
            requests[index >> Self.chunkShift].append(nil)
            ids.append(id)
            scheduled.append(next)
        }
        requests[index >> Self.chunkShift][index & Self.chunkMask] = request
        ids[index] = id
        scheduled[index] = next
        return index
    }

    /// Frees a slot whose request was taken out and has ended.
    mutating func release(_ slot: Int) {
        free.append(slot)
    }
}
