import RetryPolicyCore
import RetryPolicySimulation

/// The checks every recording reader's fuzz target makes on one input.
///
/// The first byte picks how the rest is cut into chunks (replay reads files
/// a chunk at a time, so a record may be split anywhere); the rest is the
/// recording, invalid UTF-8 included. Beyond "never traps, never hangs":
/// - reading in those chunks gives exactly the records and warnings of
///   reading the input whole (a split changes nothing);
/// - every warning and record is located on a line of the input (1 to the
///   number of lines), at a column of at least 1;
/// - every record has 1 to `RecordedRequest.maximumAttempts` attempts,
///   none of negative or over-long duration;
/// - merged by `TimeOrderedRecords`, records come out in time order;
/// - no warning prints a raw control character or starts a line with a
///   GitHub workflow command;
/// - a replay of the records holds at most one load window per attempt.
public enum RecordingHarness {
    public static func check(_ data: UnsafePointer<UInt8>, _ size: Int, format: TrafficFormat) {
        let input = UnsafeBufferPointer(start: data, count: size)
        guard let selector = input.first else { return }
        let bytes = Array(input.dropFirst())
        let chunkSizes = [1, 2, 3, 7, 64, 511, 4096]
        let chunk = chunkSizes[Int(selector) % chunkSizes.count]

        let whole = read(bytes, format: format, chunk: max(bytes.count, 1))
        let split = read(bytes, format: format, chunk: chunk)
        require(whole.records == split.records, "records differ when read in chunks of \(chunk)")
        require(whole.warnings == split.warnings, "warnings differ when read in chunks of \(chunk)")
        require(whole.warningCount == split.warningCount, "warning counts differ when read in chunks of \(chunk)")

        let lines = bytes.reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
        for warning in whole.warnings {
            require(
                (1...lines).contains(warning.location.line) && warning.location.column >= 1,
                "warning at \(warning.location.line):\(warning.location.column) of \(lines) lines")
            for line in warning.description.split(separator: "\n", omittingEmptySubsequences: false) {
                require(
                    !line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || (0x7F...0x9F).contains($0.value) },
                    "a raw control character in a warning")
                require(!line.drop { $0 == " " || $0 == "\t" }.hasPrefix("::"), "a workflow command in a warning")
            }
        }
        var previous: Timestamp?
        for record in whole.records {
            require((1...lines).contains(record.location.line), "record at line \(record.location.line) of \(lines)")
            require(!record.attempts.isEmpty && record.undescribedAttempts >= 0, "a record without attempts")
            require(record.recordedAttemptCount <= RecordedRequest.maximumAttempts, "\(record.recordedAttemptCount) attempts")
            for attempt in record.attempts {
                if let duration = attempt.duration {
                    require(duration >= .zero && duration <= RecordedRequest.maximumAttemptDuration, "duration \(duration)")
                }
            }
            if let previous { require(previous <= record.start, "records out of time order") }
            previous = record.start
        }

        guard !whole.records.isEmpty else { return }
        var index = 0
        let records = whole.records
        let run = try! ReplayDriver.run(policy: policy, configuration: .init(bucket: .seconds(1), window: .milliseconds(10), seed: 1)) {
            defer { index += 1 }
            return index < records.count ? records[index] : nil
        }
        require(run.requests == records.count, "\(run.requests) replayed of \(records.count)")
        require(run.recordedLoad.heldWindows <= max(run.recordedAttempts, 1), "more recorded windows than attempts")
        require(run.load.heldWindows <= max(run.attempts, 1), "more load windows than attempts")
        require(run.recordedLoad.total == run.recordedAttempts, "recorded load \(run.recordedLoad.total) of \(run.recordedAttempts)")
        let report = ReplayReport(run: run, baseline: nil, inputs: [], seed: 1)
        _ = report.text
        _ = report.markdown
        _ = report.json.rendered()
        _ = report.svg
    }

    static let policy = Policy(
        name: "fuzz", attempts: 3,
        backoff: Backoff(initial: .milliseconds(200), max: .seconds(5), jitter: .full),
        retryAfter: RetryAfterPolicy(honor: true, cap: .seconds(60)),
        rules: [
            Rule(statuses: [.code(429)], error: .status429, action: .retry),
            Rule(statuses: [.statusClass(5)], error: .status5xx, action: .retry),
        ])

    struct Read {
        var records: [RecordedRequest] = []
        var warnings: [Diagnostic] = []
        var warningCount = 0
    }

    static func read(_ bytes: [UInt8], format: TrafficFormat, chunk: Int) -> Read {
        var offset = 0
        let stream = RecordingStream(path: "fuzz", format: format, options: RecordingOptions()) {
            guard offset < bytes.count else { return nil }
            let end = min(bytes.count, offset + chunk)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
        var merged = TimeOrderedRecords(streams: [stream], window: .seconds(120))
        var result = Read()
        // With the format given, reading never throws.
        while let record = try! merged.next() { result.records.append(record) }
        result.warnings = merged.warnings
        result.warningCount = merged.warningCount
        return result
    }
}

/// A precondition whose message survives an optimized build (`precondition`
/// drops it with `-O`), so that a crash report says what was wrong.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError(message(), file: file, line: line) }
}

/// Hands control to libFuzzer's driver with `callback` as the target; each
/// target's `<Target>_main` (the entry point SwiftPM links) calls this.
public func runRecordingFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt
