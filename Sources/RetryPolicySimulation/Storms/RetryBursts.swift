/// The most retries within any window of one width (an outage storm's
/// retry burst), counted exactly from retry times that come in any order.
///
/// A burst is the count of retries in `[t, t + width)` for the best `t`,
/// which can always be the time of a retry. Retries are kept in buckets at
/// least a window wide, each as its offset from the bucket's start in
/// attoseconds (exact, whatever the times' resolution): the windows that
/// start in bucket `b` see only `b` and `b + 1`, so once a caller has
/// ``reached(_:)`` a time past both, they are counted and `b` is dropped.
/// Memory follows the retries not yet settled, not every retry.
///
/// A bucket is a power of two of attoseconds wide, so that a time's bucket
/// and offset are bits of its attosecond count: `Duration.components`
/// divides 128 bits by 10^18, which costs more than the rest of counting
/// a retry.
struct RetryBursts {
    /// The window, in attoseconds.
    private let width: Int64
    /// A bucket is `1 << shift` attoseconds wide, at least a window.
    private let shift: Int
    /// Buckets past this distance from `first` wait in `far`, so that a
    /// retry hours ahead does not make a bucket for every window between.
    private static var horizon: Int64 { 1 << 16 }

    /// Bucket `first + i` is `buckets[head + i]`; buckets before `head`
    /// are settled and empty.
    private var buckets: [[Int64]] = []
    private var head = 0
    private var first: Int64 = 0
    /// Whether `buckets[head]` is sorted (it was sorted as the next bucket
    /// of the one settled before it).
    private var headSorted = false
    private var far: [Int64: [Int64]] = [:]
    /// The lowest bucket in `far`, `Int64.max` when it is empty.
    private var nearestFar = Int64.max

    /// The largest burst among the windows settled so far; after
    /// ``finish()``, of every window.
    private(set) var largest = 0

    init(window: Duration) {
        let (seconds, attoseconds) = window.components
        precondition(seconds == 0 && attoseconds > 4, "a burst window is under a second")
        width = attoseconds
        shift = Int64.bitWidth - (attoseconds - 1).leadingZeroBitCount
    }

    /// A retry at `time`, which is at or after the last time reached.
    mutating func add(_ time: Duration) {
        let (bucket, offset) = position(time)
        if let index = slot(of: bucket) {
            buckets[index].append(offset)
        } else {
            far[bucket, default: []].append(offset)
            nearestFar = min(nearestFar, bucket)
        }
    }

    /// Takes in the retries of `other` (for the same window), which has
    /// settled nothing and holds none before a time this one reached: two
    /// parts of one storm's clients, counted apart, counted as one.
    mutating func merge(_ other: RetryBursts) {
        precondition(other.width == width && other.largest == 0, "a burst merges an unsettled count of the same window")
        for (distance, offsets) in other.buckets[other.head...].enumerated() where !offsets.isEmpty {
            add(offsets, to: other.first + Int64(distance))
        }
        for (bucket, offsets) in other.far { add(offsets, to: bucket) }
    }

    private mutating func add(_ offsets: [Int64], to bucket: Int64) {
        if let index = slot(of: bucket) {
            buckets[index].append(contentsOf: offsets)
        } else {
            far[bucket, default: []].append(contentsOf: offsets)
            nearestFar = min(nearestFar, bucket)
        }
    }

    /// Where `bucket` is kept among `buckets`, made if needed, or `nil`
    /// when it is beyond the horizon.
    private mutating func slot(of bucket: Int64) -> Int? {
        precondition(bucket >= first, "a retry comes no earlier than a time reached")
        let distance = bucket - first
        guard distance < Self.horizon else { return nil }
        let index = head + Int(distance)
        if index >= buckets.count { buckets.append(contentsOf: repeatElement([], count: index - buckets.count + 1)) }
        if distance == 0 { headSorted = false }
        return index
    }

    /// No retry comes before `time` any more: counts the windows that
    /// start in buckets wholly before the one before `time`'s.
    mutating func reached(_ time: Duration) {
        let (bucket, _) = position(time)
        while first + 1 < bucket {
            if head == buckets.count {
                // Nothing in the buckets kept: jump to the last bucket that
                // can be settled, or to just before the nearest far one.
                buckets.removeAll(keepingCapacity: true)
                head = 0
                first = max(first, min(bucket - 2, nearestFar == .max ? .max : nearestFar - 1))
                if first + 1 >= bucket { break }
            }
            settleFirst()
        }
    }

    /// Counts every window left; call once, after the last retry.
    mutating func finish() {
        while head < buckets.count || nearestFar != .max {
            if head == buckets.count {
                buckets.removeAll(keepingCapacity: true)
                head = 0
                first = nearestFar - 1
            }
            settleFirst()
        }
    }

    /// Counts the windows that start in bucket `first`, then drops it.
    private mutating func settleFirst() {
        if first + 1 == nearestFar, let arrived = far.removeValue(forKey: nearestFar) {
            nearestFar = far.keys.min() ?? .max
            if head + 1 >= buckets.count {
                buckets.append(contentsOf: repeatElement([], count: head + 2 - buckets.count))
            }
            buckets[head + 1].append(contentsOf: arrived)
        }
        if head < buckets.count, !buckets[head].isEmpty {
            if !headSorted { buckets[head].sort() }
            let hasNext = head + 1 < buckets.count
            if hasNext { buckets[head + 1].sort() }
            let current = buckets[head]
            let next = hasNext ? buckets[head + 1] : []
            // A window from offset `o` in this bucket holds this bucket's
            // retries in `[o, o + width)` and, when it reaches past the
            // bucket, the next one's before `o + width - span`.
            let span = Int64(1) << shift
            var end = 0
            var endOfNext = 0
            for (index, offset) in current.enumerated() {
                let limit = offset + width
                end = max(end, index)
                while end < current.count, current[end] < limit { end += 1 }
                while endOfNext < next.count, next[endOfNext] < limit - span { endOfNext += 1 }
                largest = max(largest, end - index + endOfNext)
            }
            buckets[head] = []
            headSorted = true
        } else {
            // No window starts here; the next bucket is sorted when it is
            // reached.
            headSorted = false
        }
        if head < buckets.count { head += 1 }
        first += 1
        if head >= 1024, head * 2 >= buckets.count {
            buckets.removeFirst(head)
            head = 0
        }
    }

    /// The bucket of `time` and its offset in it, in attoseconds.
    private func position(_ time: Duration) -> (bucket: Int64, offset: Int64) {
        precondition(time >= .zero, "retry times start at zero")
        let high = UInt64(bitPattern: time._high)
        let low = time._low
        let offset = Int64(bitPattern: low & (UInt64(1) << shift - 1))
        // Past millions of years, every time shares the last bucket.
        guard high >> (shift - 3) == 0 else { return (Int64.max / 2, offset) }
        return (Int64(bitPattern: high << (64 - shift) | low >> shift), offset)
    }
}
