import RetryPolicyCore

/// The upstream as the recording shows it: per endpoint and per time
/// bucket, a sample of the attempts it answered (outcome with its
/// Retry-After, and duration). A draw picks one of them, so the shares of
/// statuses and transport failures, the latency distribution and the
/// Retry-After values are the recorded ones, together.
///
/// Only buckets from the current one on are kept: the replay evicts the
/// ones behind it, remembering the last that had anything, which answers
/// for times the recording has no traffic (a gap, or after its end).
struct TrafficModel {
    let origin: Timestamp
    let bucketWidth: Duration
    /// The most attempts kept per endpoint and bucket (a uniform sample,
    /// reservoir sampling, of all it had).
    static let sampleSize = 256

    private var buckets: [Int64: Bucket] = [:]
    private var lastEvicted: Bucket?
    private var sampler: SplitMix64

    init(origin: Timestamp, bucketWidth: Duration, seed: UInt64) {
        self.origin = origin
        self.bucketWidth = bucketWidth
        sampler = SplitMix64(seed: seed ^ 0x5EED_0F_7EC0_4D)
    }

    private struct Sample {
        var attempts: [RecordedAttempt] = []
        var seen = 0

        mutating func add(_ attempt: RecordedAttempt, using generator: inout SplitMix64) {
            seen += 1
            if attempts.count < TrafficModel.sampleSize {
                attempts.append(attempt)
            } else {
                let slot = Int.random(in: 0..<seen, using: &generator)
                if slot < TrafficModel.sampleSize { attempts[slot] = attempt }
            }
        }
    }

    private struct Bucket {
        var all = Sample()
        var byEndpoint: [String: Sample] = [:]
    }

    /// The bucket of a time since the origin.
    func bucket(of time: Duration) -> Int64 {
        let nanos = time.nanosecondsSaturated
        let width = max(bucketWidth.nanosecondsSaturated, 1)
        // Floor division without `nanos - width + 1`, which overflows
        // near Int64.min.
        let quotient = nanos / width
        return nanos % width < 0 ? quotient - 1 : quotient
    }

    /// The end of the bucket holding `time` (saturating at the largest
    /// duration a bucket can name).
    func bucketEnd(of time: Duration) -> Duration {
        let next = bucket(of: time).addingReportingOverflow(1)
        guard !next.overflow else { return .nanoseconds(Int64.max) }
        let end = next.partialValue.multipliedReportingOverflow(by: max(bucketWidth.nanosecondsSaturated, 1))
        return .nanoseconds(end.overflow ? Int64.max : end.partialValue)
    }

    /// Adds every described attempt of a record, each at the time it
    /// started (the record's start plus the attempts before it).
    mutating func add(_ record: RecordedRequest) {
        var time = record.start.duration(since: origin)
        for attempt in record.attempts {
            let index = bucket(of: time)
            var bucket = buckets.removeValue(forKey: index) ?? Bucket()
            bucket.all.add(attempt, using: &sampler)
            bucket.byEndpoint[record.endpoint, default: Sample()].add(attempt, using: &sampler)
            buckets[index] = bucket
            time += attempt.duration ?? .zero
        }
    }

    /// Forgets the buckets before the one holding `time`.
    mutating func evict(before time: Duration) {
        let current = bucket(of: time)
        guard buckets.keys.contains(where: { $0 < current }) else { return }
        var latest: Int64?
        for key in buckets.keys where key < current {
            if latest.map({ key > $0 }) ?? true { latest = key }
        }
        if let latest, let bucket = buckets[latest] { lastEvicted = bucket }
        for key in Array(buckets.keys) where key < current { buckets.removeValue(forKey: key) }
    }

    /// Number of buckets held (for the memory bound's test).
    var heldBuckets: Int { buckets.count }

    /// What the upstream answers an attempt to `endpoint` starting at
    /// `time`: a draw from the endpoint's sample in that bucket, else from
    /// every endpoint's, else from the last bucket before it that had any.
    func draw<G: RandomNumberGenerator>(endpoint: String, at time: Duration, using generator: inout G) -> RecordedAttempt? {
        if let bucket = buckets[bucket(of: time)] {
            if let sample = bucket.byEndpoint[endpoint], !sample.attempts.isEmpty { return pick(sample, &generator) }
            if !bucket.all.attempts.isEmpty { return pick(bucket.all, &generator) }
        }
        // Earlier buckets still held (the evicted ones are behind them).
        let current = bucket(of: time)
        var best: Int64?
        for key in buckets.keys where key < current && buckets[key]!.all.seen > 0 {
            if best.map({ key > $0 }) ?? true { best = key }
        }
        if let best, let bucket = buckets[best] {
            if let sample = bucket.byEndpoint[endpoint], !sample.attempts.isEmpty { return pick(sample, &generator) }
            return pick(bucket.all, &generator)
        }
        if let bucket = lastEvicted {
            if let sample = bucket.byEndpoint[endpoint], !sample.attempts.isEmpty { return pick(sample, &generator) }
            return pick(bucket.all, &generator)
        }
        return nil
    }

    private func pick<G: RandomNumberGenerator>(_ sample: Sample, _ generator: inout G) -> RecordedAttempt {
        sample.attempts[Int.random(in: 0..<sample.attempts.count, using: &generator)]
    }
}
