import RetryPolicyCore

/// Every recording's requests, merged in order of start time. Each file
/// is read only as far as the reorder window ahead of the next request to
/// hand out, so memory holds the requests of that window, not the files.
public struct TimeOrderedRecords {
    public private(set) var streams: [RecordingStream]
    private let window: Duration
    private var frontiers: [Timestamp?]
    private var active: [Bool]
    private var heap = MinHeap<Pending>()
    private var sequence = 0
    private var lastEmitted: Timestamp?
    /// Requests found more than the window out of order: they are
    /// replayed at the time reached when they were read.
    public private(set) var lateWarnings: [Diagnostic] = []
    public private(set) var lateCount = 0

    /// A record waiting its turn: its start and sequence order it, the
    /// record itself waits in `held` (the heap moves only these).
    private struct Pending: Comparable {
        var start: Int64
        var sequence: Int
        var slot: Int
        static func < (lhs: Pending, rhs: Pending) -> Bool { (lhs.start, lhs.sequence) < (rhs.start, rhs.sequence) }
        static func == (lhs: Pending, rhs: Pending) -> Bool { lhs.sequence == rhs.sequence }
    }
    private var held: [RecordedRequest?] = []
    private var freeSlots: [Int] = []

    public init(streams: [RecordingStream], window: Duration) {
        self.streams = streams
        self.window = window
        frontiers = Array(repeating: nil, count: streams.count)
        active = Array(repeating: true, count: streams.count)
    }

    /// Every warning of every stream, the late requests included, in
    /// order of file and line; and their total count.
    public var warnings: [Diagnostic] {
        (streams.flatMap(\.warnings) + lateWarnings).sorted { $0.location < $1.location }
    }
    public var warningCount: Int { streams.reduce(0) { $0 + $1.warningCount } + lateCount }

    public mutating func next() throws -> RecordedRequest? {
        while true {
            let horizon = heap.first.map { Timestamp(nanosecondsSince1970: $0.start) + window }
            if let index = active.indices.first(where: { active[$0] && (horizon == nil || frontiers[$0].map { $0 < horizon! } ?? true) }) {
                if let record = try streams[index].next() {
                    frontiers[index] = max(frontiers[index] ?? record.start, record.start)
                    let slot = freeSlots.popLast() ?? held.count
                    if slot == held.count { held.append(record) } else { held[slot] = record }
                    heap.push(Pending(start: record.start.nanosecondsSince1970, sequence: sequence, slot: slot))
                    sequence += 1
                } else {
                    active[index] = false
                }
                continue
            }
            guard let pending = heap.pop() else { return nil }
            var record = held[pending.slot].take()!
            freeSlots.append(pending.slot)
            if let lastEmitted, record.start < lastEmitted {
                lateCount += 1
                if lateWarnings.count < RecordingStream.maximumKeptWarnings {
                    lateWarnings.append(Diagnostic(
                        severity: .warning,
                        location: record.location,
                        message: "this request is more than \(window.formattedForHumans) out of time order; it is replayed at \(RecordedTime.format(lastEmitted))",
                        suggestion: "sort the recording, or widen --reorder-window"))
                }
                record.start = lastEmitted
            }
            lastEmitted = record.start
            return record
        }
    }
}
