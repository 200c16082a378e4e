import RetryPolicyCore

/// What the readers need besides the bytes.
public struct RecordingOptions: Sendable {
    /// Header names (lower case) kept on responses: those the policies'
    /// `retry_after` reads. Every other header is dropped while reading.
    public var keptHeaders: Set<String>
    /// The server's `log_format`, for nginx logs in a format replay does
    /// not recognise.
    package var nginxFormat: NginxLogFormat?
    /// How far out of time order records may arrive and still be sorted
    /// (nginx logs a request when it ends, so a slow request is written
    /// after quicker ones that started later).
    package var reorderWindow: Duration

    public init(keptHeaders: Set<String> = ["retry-after"], nginxFormat: NginxLogFormat? = nil, reorderWindow: Duration = .seconds(120)) {
        self.keptHeaders = Set(keptHeaders.map { $0.lowercased() })
        self.nginxFormat = nginxFormat
        self.reorderWindow = reorderWindow
    }
}

/// One recording read lazily, in the order it was written: bytes come in
/// chunks from `read` (the caller owns the file), records go out one at a
/// time. Lines or entries that cannot be read are warnings, counted and
/// kept up to `maximumKeptWarnings`; reading goes on after them.
public struct RecordingStream {
    public let path: String
    public private(set) var format: TrafficFormat?
    private let options: RecordingOptions
    private let read: () throws -> [UInt8]?

    public private(set) var warningCount = 0
    public private(set) var warnings: [Diagnostic] = []
    package static let maximumKeptWarnings = 100
    /// Records read so far.
    public private(set) var recordCount = 0

    private var lineParser: (any RecordingLineParser)?
    private var har: HARParser?
    private var pendingLine: [UInt8] = []
    private var lineNumber = 0
    private var ready: [RecordedRequest] = []
    private var readyIndex = 0
    private var ended = false
    private var detectionBuffer: [UInt8] = []
    /// Bytes looked at to tell the format.
    static let detectionLength = 4096

    /// - Parameters:
    ///   - path: the file's name in warnings and errors.
    ///   - format: the format, or `nil` to tell it from the first bytes.
    ///   - options: the headers kept, an nginx `log_format`, the
    ///     reorder window.
    ///   - read: the next chunk of the file, or `nil` at its end.
    public init(path: String, format: TrafficFormat?, options: RecordingOptions, read: @escaping () throws -> [UInt8]?) {
        self.path = path
        self.format = format
        self.options = options
        self.read = read
    }

    /// The next record, or `nil` at the end. Throws only when the
    /// recording cannot be read at all (its format cannot be told, or
    /// `read` fails).
    public mutating func next() throws -> RecordedRequest? {
        while readyIndex == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            if ended { return nil }
            guard let chunk = try read() else {
                if !detectionBuffer.isEmpty {
                    let head = detectionBuffer
                    detectionBuffer = []
                    try consume(head[...])
                }
                finish()
                ended = true
                continue
            }
            // The format is told from the first bytes: gather enough of them.
            if format == nil, detectionBuffer.count + chunk.count < Self.detectionLength {
                detectionBuffer.append(contentsOf: chunk)
                continue
            }
            if !detectionBuffer.isEmpty {
                detectionBuffer.append(contentsOf: chunk)
                let head = detectionBuffer
                detectionBuffer = []
                try consume(head[...])
            } else {
                try consume(chunk[...])
            }
        }
        defer { readyIndex += 1 }
        recordCount += 1
        return ready[readyIndex]
    }

    private mutating func warn(_ diagnostic: Diagnostic) {
        warningCount += 1
        if warnings.count < Self.maximumKeptWarnings { warnings.append(diagnostic) }
    }

    private mutating func take(_ result: Result<RecordedRequest?, Diagnostic>) {
        switch result {
        case .success(let record?):
            // One check for every reader: a record's attempts and durations
            // bound the work it causes downstream.
            if let problem = record.rangeProblem {
                warn(Diagnostic(
                    severity: .warning,
                    location: record.location, message: problem,
                    suggestion: "is the line from a real recording? fix or drop it"))
            } else {
                ready.append(record)
            }
        case .success(nil): break
        case .failure(let diagnostic): warn(diagnostic)
        }
    }

    private mutating func start(with head: ArraySlice<UInt8>) throws {
        if format == nil {
            guard let detected = TrafficFormat.detect(head, nginx: options.nginxFormat) else {
                throw ReplayInputError(
                    location: SourceLocation(file: path, line: 1, column: 1),
                    message: "cannot tell the recording's format: expected HAR, an nginx or Envoy access log, or JSONL",
                    suggestion: "name it with --format har|nginx|envoy|jsonl (and give an nginx log_format with --nginx-log-format)")
            }
            format = detected
        }
        switch format! {
        case .har: har = HARParser(path: path, keptHeaders: options.keptHeaders)
        case .nginx: lineParser = NginxLogParser(format: options.nginxFormat, keptHeaders: options.keptHeaders)
        case .envoy: lineParser = EnvoyLogParser()
        case .jsonl: lineParser = JSONLinesParser(keptHeaders: options.keptHeaders)
        }
    }

    private mutating func consume(_ chunk: ArraySlice<UInt8>) throws {
        if har == nil && lineParser == nil { try start(with: chunk) }
        if var parser = har {
            var results: [Result<RecordedRequest?, Diagnostic>] = []
            parser.consume(chunk) { results.append($0) }
            har = parser
            for result in results { take(result) }
            return
        }
        var index = chunk.startIndex
        while index < chunk.endIndex {
            guard let newline = chunk[index...].firstIndex(of: 10) else {
                // The line goes on in the next chunk.
                if !skippingLongLine {
                    pendingLine.append(contentsOf: chunk[index...])
                    if pendingLine.count > Self.maximumLineLength {
                        pendingLine.removeAll()
                        longLine()
                        skippingLongLine = true
                    }
                }
                return
            }
            if skippingLongLine {
                // The end of a line already counted and reported.
                skippingLongLine = false
            } else if pendingLine.isEmpty {
                if newline - index > Self.maximumLineLength {
                    longLine()
                } else {
                    parseLine(chunk[index..<newline])
                }
            } else {
                if pendingLine.count + (newline - index) > Self.maximumLineLength {
                    pendingLine.removeAll()
                    longLine()
                } else {
                    pendingLine.append(contentsOf: chunk[index..<newline])
                    let line = pendingLine
                    pendingLine.removeAll(keepingCapacity: true)
                    parseLine(line[...])
                }
            }
            index = newline + 1
        }
    }

    /// Longer lines are skipped with a warning rather than held.
    package static let maximumLineLength = 1 << 20
    /// Inside a line already reported as too long: its bytes are dropped
    /// up to its end, which does not count as another line.
    private var skippingLongLine = false

    /// A line over `maximumLineLength`: counted once and reported once
    /// (its rest, in later chunks, is skipped to its end).
    private mutating func longLine() {
        lineNumber += 1
        warn(Diagnostic(
            severity: .warning,
            location: SourceLocation(file: path, line: lineNumber, column: 1),
            message: "expected a line of at most \(Self.maximumLineLength) bytes, found a longer one; it is skipped",
            suggestion: "is this a binary file?"))
    }

    private mutating func parseLine(_ line: ArraySlice<UInt8>) {
        lineNumber += 1
        var line = line
        if line.last == 13 { line = line.dropLast() }
        let location = SourceLocation(file: path, line: lineNumber, column: 1)
        take(lineParser!.parse(line: line, location: location))
    }

    private mutating func finish() {
        if har == nil && lineParser == nil {
            if format == nil { return }
            try? start(with: [][...])
        }
        if let har {
            if let problem = har.finish() { warn(problem) }
            return
        }
        if !pendingLine.isEmpty {
            let line = pendingLine
            pendingLine.removeAll()
            parseLine(line[...])
        }
    }
}
