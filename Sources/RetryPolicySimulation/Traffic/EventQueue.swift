/// An event that ``EventQueue`` orders: by `<`, and into buckets by
/// ``bucket``.
protocol QueuedEvent: Comparable {
    /// The event's bucket of about a millisecond: of two events, the
    /// earlier by `<` never has the greater one.
    var bucket: Int64 { get }
}

/// The event queue of ``SimulatedTraffic``: a calendar of buckets of about
/// a millisecond, each sorted only when the simulation reaches it.
///
/// A binary heap of a million pending events spends its time in cache
/// misses, twenty levels deep on every pop. Simulated time only moves
/// forward, so events can wait unsorted in the bucket of their time and be
/// sorted a bucket at a time, when it becomes the current one: a sort of a
/// few thousand neighbouring events instead of a walk through the whole
/// heap for each one. Events later than the calendar's horizon (about a
/// minute ahead) wait in a heap until the calendar reaches them.
///
/// Elements come out in the order of `<`, exactly as from a heap.
struct EventQueue<Element: QueuedEvent> {
    private static var bucketCount: Int { 1 << 16 }

    /// The events of the buckets after the current one, each bucket in
    /// the slot of its number modulo ``bucketCount``.
    private var calendar: [[Element]]
    private var calendarCount = 0
    /// One bit per calendar slot, set while the slot holds events: the
    /// next non-empty bucket is found a word of 64 slots at a time.
    private var occupied: [UInt64]
    /// The current bucket's events (and any pushed for an earlier time),
    /// sorted from the latest to the earliest: the next one is last.
    private var current: [Element] = []
    /// Simulated time starts at zero; an event before it joins the
    /// current bucket.
    private var currentBucket: Int64 = -1
    /// Events at least ``bucketCount`` buckets after the current one.
    private var later = MinHeap<Element>()

    init() {
        calendar = Array(repeating: [], count: Self.bucketCount)
        occupied = Array(repeating: 0, count: Self.bucketCount / 64)
    }

    private mutating func file(_ element: Element, inBucket bucket: Int64) {
        let slot = Int(bucket & Int64(Self.bucketCount - 1))
        calendar[slot].append(element)
        occupied[slot >> 6] |= 1 << UInt64(slot & 63)
        calendarCount += 1
    }

    /// The first occupied slot from `start` on, going round.
    private func firstOccupiedSlot(from start: Int) -> Int {
        var word = start >> 6
        var bits = occupied[word] & (~0 << UInt64(start & 63))
        while bits == 0 {
            word = (word + 1) % occupied.count
            bits = occupied[word]
        }
        return word << 6 + bits.trailingZeroBitCount
    }

    private static func bucket(of element: Element) -> Int64 { element.bucket }

    /// Adds an event at or after the last one popped.
    mutating func push(_ element: Element) {
        let bucket = Self.bucket(of: element)
        if bucket <= currentBucket {
            // Events come near the front: the search ends close to the end.
            var index = current.count
            while index > 0, current[index - 1] < element { index -= 1 }
            current.insert(element, at: index)
        } else if bucket - currentBucket < Int64(Self.bucketCount) {
            file(element, inBucket: bucket)
        } else {
            later.push(element)
        }
    }

    mutating func pop() -> Element? {
        if current.isEmpty { advance() }
        return current.popLast()
    }

    /// Makes the earliest non-empty bucket the current one.
    private mutating func advance() {
        var next: Int64?
        if calendarCount > 0 {
            // Every calendar event is within a turn of the current bucket:
            // the distance to its slot, going round, is the distance in
            // buckets.
            let mask = Int64(Self.bucketCount - 1)
            let start = Int((currentBucket + 1) & mask)
            let slot = firstOccupiedSlot(from: start)
            next = currentBucket + 1 + Int64((slot - start + Self.bucketCount) & (Self.bucketCount - 1))
        }
        if let earliest = later.first?.bucket, next.map({ earliest < $0 }) ?? true { next = earliest }
        guard let next else { return }
        currentBucket = next
        let slot = Int(next & Int64(Self.bucketCount - 1))
        if !calendar[slot].isEmpty {
            // The bucket's storage moves out whole; an emptied slot keeps no
            // capacity, so memory follows the events pending, not the
            // busiest moment of each slot.
            current = calendar[slot]
            calendar[slot] = []
            occupied[slot >> 6] &= ~(1 << UInt64(slot & 63))
            calendarCount -= current.count
        }
        // Events that the calendar's horizon now reaches leave the heap.
        while let earliest = later.first, Self.bucket(of: earliest) - next < Int64(Self.bucketCount) {
            _ = later.pop()
            let bucket = Self.bucket(of: earliest)
            if bucket == next {
                current.append(earliest)
            } else {
                file(earliest, inBucket: bucket)
            }
        }
        current.sort(by: >)
    }
}
