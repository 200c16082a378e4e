/// An event that ``EventQueue`` orders: by `<`, and into buckets by
/// ``bucketTime``.
protocol QueuedEvent: Comparable {
    /// The event's time in whole nanoseconds (the fraction cut off): of two
    /// events, the earlier by `<` never has the greater one.
    var bucketTime: Int64 { get }
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
    private static var bucketShift: Int64 { 20 }
    private static var bucketCount: Int { 1 << 16 }

    /// The events of the buckets after the current one, each bucket in
    /// the slot of its number modulo ``bucketCount``.
    private var calendar: [[Element]]
    private var calendarCount = 0
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
    }

    private static func bucket(of element: Element) -> Int64 { element.bucketTime >> bucketShift }

    /// Adds an event at or after the last one popped.
    mutating func push(_ element: Element) {
        let bucket = Self.bucket(of: element)
        if bucket <= currentBucket {
            // Events come near the front: the search ends close to the end.
            var index = current.count
            while index > 0, current[index - 1] < element { index -= 1 }
            current.insert(element, at: index)
        } else if bucket - currentBucket < Int64(Self.bucketCount) {
            calendar[Int(bucket & Int64(Self.bucketCount - 1))].append(element)
            calendarCount += 1
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
            var bucket = currentBucket + 1
            while calendar[Int(bucket & Int64(Self.bucketCount - 1))].isEmpty { bucket += 1 }
            next = bucket
        }
        if let earliest = later.first.map(Self.bucket(of:)), next.map({ earliest < $0 }) ?? true { next = earliest }
        guard let next else { return }
        currentBucket = next
        let slot = Int(next & Int64(Self.bucketCount - 1))
        if !calendar[slot].isEmpty {
            // The bucket's storage moves out whole; an emptied slot keeps no
            // capacity, so memory follows the events pending, not the
            // busiest moment of each slot.
            current = calendar[slot]
            calendar[slot] = []
            calendarCount -= current.count
        }
        // Events that the calendar's horizon now reaches leave the heap.
        while let earliest = later.first, Self.bucket(of: earliest) - next < Int64(Self.bucketCount) {
            _ = later.pop()
            let bucket = Self.bucket(of: earliest)
            if bucket == next {
                current.append(earliest)
            } else {
                calendar[Int(bucket & Int64(Self.bucketCount - 1))].append(earliest)
                calendarCount += 1
            }
        }
        current.sort(by: >)
    }
}
