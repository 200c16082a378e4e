extension CircuitBreakerStateMachine {
    /// The sliding window: a ring of the last calls, or ten time buckets.
    struct Window: Sendable {
        private let sampling: CircuitBreakerConfiguration.Sampling
        /// Count window: 1 for a failure, 0 for a success, in a ring.
        /// Time window: failures and calls per bucket, interleaved.
        private var slots: [Int]
        private var next = 0
        /// Time window: the bucket number of the newest bucket.
        private var newestBucket: Int64 = .min
        private(set) var calls = 0
        private(set) var failures = 0

        static let bucketCount = 10

        init(_ sampling: CircuitBreakerConfiguration.Sampling) {
            self.sampling = sampling
            switch sampling {
            // The ring grows with the calls it sees rather than being
            // reserved whole: a simulation gives each of a million clients
            // a breaker that sees a handful of calls.
            case .count: slots = []
            case .time: slots = [Int](repeating: 0, count: Self.bucketCount * 2)
            }
        }

        mutating func reset() {
            calls = 0
            failures = 0
            next = 0
            newestBucket = .min
            switch sampling {
            case .count: slots.removeAll(keepingCapacity: true)
            case .time: for index in slots.indices { slots[index] = 0 }
            }
        }

        mutating func add(failure: Bool, at now: Timestamp) {
            let value = failure ? 1 : 0
            switch sampling {
            case .count(let size):
                let size = max(size, 1)
                if slots.count < size {
                    slots.append(value)
                    calls += 1
                } else {
                    failures -= slots[next]
                    slots[next] = value
                }
                next = (next + 1) % size
                failures += value
            case .time(let length):
                let width = max(length.nanosecondsSaturated / Int64(Self.bucketCount), 1)
                let bucket = now.nanosecondsSince1970 / width
                if newestBucket == .min || bucket - newestBucket >= Int64(Self.bucketCount) {
                    reset()
                } else if bucket > newestBucket {
                    // Empty the buckets that fell out of the window.
                    for passed in (newestBucket + 1)...bucket {
                        let slot = Int(passed.modulo(Int64(Self.bucketCount))) * 2
                        failures -= slots[slot]
                        calls -= slots[slot + 1]
                        slots[slot] = 0
                        slots[slot + 1] = 0
                    }
                }
                // A call recorded at an earlier instant than the newest
                // bucket (clocks of different requests) lands in the newest.
                newestBucket = max(newestBucket, bucket)
                let slot = Int(newestBucket.modulo(Int64(Self.bucketCount))) * 2
                slots[slot] += value
                slots[slot + 1] += 1
                failures += value
                calls += 1
            }
        }
    }
}

extension Int64 {
    fileprivate func modulo(_ divisor: Int64) -> Int64 {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
