import RetryPolicyCore

/// Recorded requests as the arrivals of simulated traffic, each at its
/// recorded start (since the first one's).
///
/// Handing out a request at time *t* first reads the recording on to the
/// end of *t*'s model bucket, so that a retry drawing at any time up to
/// the next arrival finds its bucket complete; the requests read ahead
/// wait here, in order, until their turn.
struct RecordedArrivals: TrafficArrivals {
    let context: ReplayContext
    private let source: () throws -> RecordedRequest?
    private var ahead: [RecordedRequest] = []
    private var head = 0
    private var readTo: Duration?
    private var ended = false
    private var id = 0

    init(context: ReplayContext, first: RecordedRequest, next: @escaping () throws -> RecordedRequest?) {
        self.context = context
        source = next
        take(first)
    }

    private mutating func take(_ record: RecordedRequest) {
        let record = Self.relativeRetryAfter(record)
        context.ingest(record)
        ahead.append(record)
        readTo = record.start.duration(since: context.origin)
    }

    private mutating func read() {
        guard !ended else { return }
        do {
            if let record = try source() { take(record) } else { ended = true }
        } catch {
            context.failure = error
            ended = true
        }
    }

    /// A Retry-After written as an HTTP-date names an instant of the
    /// recording; replay runs on its own clock, so the date becomes the
    /// delay it meant when the response was sent (whole seconds, rounded
    /// up), which is what a retry drawing it later should wait.
    static func relativeRetryAfter(_ record: RecordedRequest) -> RecordedRequest {
        var record = record
        var sent = record.start
        for index in record.attempts.indices {
            sent = sent + (record.attempts[index].duration ?? .zero)
            guard case .response(let status, var headers) = record.attempts[index].outcome, !headers.fields.isEmpty else { continue }
            var changed = false
            for field in headers.fields.indices {
                let value = headers.fields[field].value
                guard value.contains(where: { !$0.isNumber }), let instant = HTTPDate.parse(value, now: sent) else { continue }
                let nanoseconds = max(instant.duration(since: sent).nanosecondsSaturated, 0)
                let seconds = nanoseconds / 1_000_000_000 + (nanoseconds % 1_000_000_000 > 0 ? 1 : 0)
                headers.fields[field].value = String(seconds)
                changed = true
            }
            if changed { record.attempts[index].outcome = .response(status: status, headers: headers) }
        }
        return record
    }

    mutating func next() -> TrafficArrival? {
        if head == ahead.count { read() }
        guard head < ahead.count else { return nil }
        let record = ahead[head]
        head += 1
        if head > 4096, head * 2 > ahead.count {
            ahead.removeFirst(head)
            head = 0
        }
        let time = record.start.duration(since: context.origin)
        let horizon = context.model.bucketEnd(of: time)
        while !ended, let reached = readTo, reached < horizon { read() }
        defer { id += 1 }
        context.active[id] = ReplayContext.Active(record: record, lastEnd: time)
        context.run.requests += 1
        context.run.peakActiveRequests = max(context.run.peakActiveRequests, context.active.count)
        return TrafficArrival(time: time, id: id, request: RetryRequest(method: record.method, endpoint: record.endpoint))
    }
}
