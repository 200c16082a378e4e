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
    public private(set) var lateWarnings: [ReplayDiagnostic] = []
    public private(set) var lateCount = 0

    private struct Pending: Comparable {
        var start: Timestamp
        var sequence: Int
        var record: RecordedRequest
        static func < (lhs: Pending, rhs: Pending) -> Bool { (lhs.start, lhs.sequence) < (rhs.start, rhs.sequence) }
        static func == (lhs: Pending, rhs: Pending) -> Bool { lhs.sequence == rhs.sequence }
    }

    public init(streams: [RecordingStream], window: Duration) {
        self.streams = streams
        self.window = window
        frontiers = Array(repeating: nil, count: streams.count)
        active = Array(repeating: true, count: streams.count)
    }

    /// Every warning of every stream, the late requests included, in
    /// order of file and line; and their total count.
    public var warnings: [ReplayDiagnostic] {
        (streams.flatMap(\.warnings) + lateWarnings).sorted { $0.location < $1.location }
    }
    public var warningCount: Int { streams.reduce(0) { $0 + $1.warningCount } + lateCount }

    public mutating func next() throws -> RecordedRequest? {
        while true {
            let horizon = heap.first.map { $0.start + window }
            if let index = active.indices.first(where: { active[$0] && (horizon == nil || frontiers[$0].map { $0 < horizon! } ?? true) }) {
                if let record = try streams[index].next() {
                    frontiers[index] = max(frontiers[index] ?? record.start, record.start)
                    heap.push(Pending(start: record.start, sequence: sequence, record: record))
                    sequence += 1
                } else {
                    active[index] = false
                }
                continue
            }
            guard var pending = heap.pop() else { return nil }
            if let lastEmitted, pending.start < lastEmitted {
                lateCount += 1
                if lateWarnings.count < RecordingStream.maximumKeptWarnings {
                    lateWarnings.append(ReplayDiagnostic(
                        location: pending.record.location,
                        message: "this request is more than \(window.formattedForHumans) out of time order; it is replayed at \(RecordedTime.format(lastEmitted))",
                        suggestion: "sort the recording, or widen --reorder-window"))
                }
                pending.record.start = lastEmitted
            }
            lastEmitted = pending.record.start
            return pending.record
        }
    }
}
