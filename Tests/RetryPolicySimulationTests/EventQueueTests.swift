import PropertyBased
import RetryPolicyCore
@testable import RetryPolicySimulation
import Testing

/// The calendar queue must give events back in exactly the order a heap
/// would: by time to the attosecond, then by id, whatever bucket, horizon
/// or overflow heap they passed through.
@Suite struct EventQueueTests {
    struct Event: QueuedEvent, CustomStringConvertible {
        var time: Duration
        var id: Int

        /// Whole milliseconds, as the simulation's events have it.
        var bucket: Int64 {
            let (seconds, attoseconds) = time.components
            return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
        }

        static func < (lhs: Event, rhs: Event) -> Bool { (lhs.time, lhs.id) < (rhs.time, rhs.id) }
        var description: String { "\(time)#\(id)" }
    }

    /// A delay from `random`: at once, within a bucket (down to
    /// attoseconds), within the horizon, or far beyond it.
    static func delay(_ random: inout SplitMix64) -> Duration {
        switch random.next() % 6 {
        case 0: return .zero
        case 1: return Duration(secondsComponent: 0, attosecondsComponent: Int64(random.next() % 1_000_000_000))
        case 2: return .microseconds(Int64(random.next() % 5_000))
        case 3: return .milliseconds(Int64(random.next() % 3_000))
        case 4: return .seconds(Int64(random.next() % 200))
        default: return .seconds(Int64(random.next() % 100_000))
        }
    }

    @Test("pops come in the order of (time, id), as from a heap, for pushes at or after the last pop")
    func matchesHeap() async {
        await propertyCheck(count: 150, input: Gen.uint64(in: 0...UInt64.max), Gen.int(in: 1...1_500)) { seed, count in
            var random = SplitMix64(seed: seed)
            var queue = EventQueue<Event>()
            var heap = MinHeap<Event>()
            var now = Duration.zero
            var nextID = 0
            var popped: [Event] = []
            var expected: [Event] = []
            for _ in 0..<count {
                // Several events may come per pop, as an event starts an
                // attempt that ends at once and schedules a wait.
                for _ in 0..<Int(random.next() % 3) {
                    let event = Event(time: now + Self.delay(&random), id: Int(random.next() % 50) * 1_000 + nextID)
                    nextID += 1
                    queue.push(event)
                    heap.push(event)
                }
                guard let next = queue.pop() else {
                    #expect(heap.pop() == nil)
                    continue
                }
                popped.append(next)
                expected.append(heap.pop()!)
                now = next.time
            }
            while let next = queue.pop() { popped.append(next) }
            while let next = heap.pop() { expected.append(next) }
            #expect(popped.map(\.description) == expected.map(\.description), "seed \(seed)")
        }
    }
}
