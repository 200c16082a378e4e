/// The most retries within any window of one width (an outage storm's
/// retry burst), counted exactly from retry times that come in any order.
///
/// A burst is the count of retries in `[t, t + width)` for the best `t`,
/// which can always be the time of a retry. Retries are kept in buckets
/// one window wide, each as its offset from the bucket's start in
/// attoseconds (exact, whatever the times' resolution): the windows that
/// start in bucket `b` see only `b` and `b + 1`, so once a caller has
/// ``reached(_:)`` a time past both, they are counted and `b` is dropped.
/// Memory follows the retries not yet settled, not every retry.
struct RetryBursts {
    /// The window, in attoseconds; it divides a second.
    private let width: Int64
    private let bucketsPerSecond: Int64
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

    /// The largest burst among the windows settled so far; after
    /// ``finish()``, of every window.
    private(set) var largest = 0

    init(window: Duration) {
        let (seconds, attoseconds) = window.components
        precondition(
            seconds == 0 && attoseconds > 0 && 1_000_000_000_000_000_000 % attoseconds == 0,
            "a burst window divides a second")
        width = attoseconds
        bucketsPerSecond = 1_000_000_000_000_000_000 / attoseconds
    }

    /// A retry at `time`, which is at or after the last time reached.
    mutating func add(_ time: Duration) {
        let (bucket, offset) = position(time)
        precondition(bucket >= first, "a retry comes no earlier than a time reached")
        let distance = bucket - first
        guard distance < Self.horizon else {
            far[bucket, default: []].append(offset)
            return
        }
        let index = head + Int(distance)
        if index >= buckets.count { buckets.append(contentsOf: repeatElement([], count: index - buckets.count + 1)) }
        buckets[index].append(offset)
        if distance == 0 { headSorted = false }
    }

    /// No retry comes before `time` any more: counts the windows that
    /// start in buckets wholly before the one before `time`'s.
    mutating func reached(_ time: Duration) {
        let (bucket, _) = position(time)
        while first + 1 < bucket {
            if head == buckets.count {
                // Nothing in the buckets kept: jump to the last bucket that
                // can be settled, or to just before the nearest far one.
                let nearest = far.keys.min().map { $0 - 1 } ?? Int64.max
                buckets.removeAll(keepingCapacity: true)
                head = 0
                first = max(first, min(bucket - 2, nearest))
                if first + 1 >= bucket { break }
            }
            settleFirst()
        }
    }

    /// Counts every window left; call once, after the last retry.
    mutating func finish() {
        while head < buckets.count || !far.isEmpty {
            if head == buckets.count, let nearest = far.keys.min() {
                buckets.removeAll(keepingCapacity: true)
                head = 0
                first = nearest - 1
            }
            settleFirst()
        }
    }

    /// Counts the windows that start in bucket `first`, then drops it.
    private mutating func settleFirst() {
        if !far.isEmpty, let arrived = far.removeValue(forKey: first + 1) {
            if head + 1 >= buckets.count {
                buckets.append(contentsOf: repeatElement([], count: head + 2 - buckets.count))
            }
            buckets[head + 1].append(contentsOf: arrived)
        }
        if head < buckets.count {
            if !headSorted { buckets[head].sort() }
            let hasNext = head + 1 < buckets.count
            if hasNext { buckets[head + 1].sort() }
            let current = buckets[head]
            let next = hasNext ? buckets[head + 1] : []
            // A window from offset `o` in this bucket holds this bucket's
            // retries from `o` on and the next bucket's before `o`.
            var before = 0
            for (index, offset) in current.enumerated() {
                while before < next.count, next[before] < offset { before += 1 }
                largest = max(largest, current.count - index + before)
            }
            buckets[head] = []
            head += 1
        }
        first += 1
        headSorted = true
        if head >= 1024, head * 2 >= buckets.count {
            buckets.removeFirst(head)
            head = 0
        }
    }

    /// The bucket of `time` and its offset in it, in attoseconds.
    private func position(_ time: Duration) -> (bucket: Int64, offset: Int64) {
        precondition(time >= .zero, "retry times start at zero")
        let (seconds, attoseconds) = time.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: bucketsPerSecond)
        // Past 290 million years, every time shares the last bucket.
        if overflow || whole > Int64.max / 2 { return (Int64.max / 2, attoseconds % width) }
        return (whole + attoseconds / width, attoseconds % width)
    }
}
