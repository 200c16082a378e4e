import RetryPolicyCore

/// Reads HTTP Archive 1.2 documents entry by entry, as the bytes arrive:
/// only `log.entries` is looked into, and only one entry is held at a
/// time, so a large archive takes no more memory than its largest entry.
///
/// Of an entry, replay reads `startedDateTime`, `time` (milliseconds),
/// `request.method`, `request.url`, `response.status` and, of
/// `response.headers`, only those a policy's `retry_after` reads. A
/// status of 0 (no response: browsers write the reason in `_error`) is
/// read as the transport failure the reason names, else
/// `connection_lost`.
///
/// Memory is bounded whatever the archive holds: nesting deeper than
/// `maximumDepth` ends the reading with a warning (as the policy loader
/// refuses deep YAML); a string longer than `maximumStringLength` inside
/// an entry (a response body, a data URL) is held as `""`, since replay
/// reads no long field; and an entry still larger than
/// `maximumEntryLength` is skipped with a warning, reading going on at
/// the next entry.
struct HARParser {
    let path: String
    let keptHeaders: Set<String>

    private enum Container {
        case object(key: [UInt8], expectingKey: Bool)
        case array(entries: Bool)
    }
    private var stack: [Container] = []
    private var inString = false
    private var escaped = false
    private var stringBytes: [UInt8] = []
    private var capturing = false
    private var capture: [UInt8] = []
    /// Where the string being captured starts in `capture` (its opening
    /// quote), and whether its content is being dropped for its length.
    private var captureStringStart = 0
    private var elidingString = false
    /// The entry being read went over `maximumEntryLength`: it is
    /// skipped to its end, warned about once.
    private var skippingEntry = false

    /// Deepest nesting of objects and arrays read, as the policy loader's.
    static let maximumDepth = 64
    /// Longest string of an entry kept; longer ones are held as `""`.
    static let maximumStringLength = 64 * 1024
    /// Largest entry read, once long strings are dropped.
    static let maximumEntryLength = 1 << 20
    private var captureLine = 1
    private var line = 1
    private(set) var sawEntries = false
    /// In `log.entries`, after an entry: the next byte must be `,` or `]`.
    private var afterEntry = false
    /// `log.entries` stopped being an array of objects: whatever follows
    /// cannot be told apart into entries, so it is skipped, after one
    /// warning, rather than read as entries of its parts.
    private var abandoned = false

    init(path: String, keptHeaders: Set<String>) {
        self.path = path
        self.keptHeaders = keptHeaders
    }

    /// Feeds the next bytes; every entry they complete is handed to
    /// `emit` (a record or a located warning).
    mutating func consume(_ chunk: ArraySlice<UInt8>, emit: (Result<RecordedRequest?, Diagnostic>) -> Void) {
        if abandoned { return }
        for index in chunk.indices {
            if let warning = pendingWarning {
                pendingWarning = nil
                emit(.failure(warning))
            }
            let byte = chunk[index]
            if byte == 10 { line += 1 }
            if !inString, case .array(true)? = stack.last, !Self.isSpace(byte) {
                // Between entries only `,` and `]` may come, and only an
                // object or `]` after a comma or the opening bracket.
                let expected = afterEntry
                    ? byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]")
                    : byte == UInt8(ascii: "{") || byte == UInt8(ascii: "]")
                if !expected {
                    abandon(
                        afterEntry
                            ? "expected ',' or ']' after an entry of log.entries; the rest of the archive is skipped"
                            : "expected an entry object in log.entries; the rest of the archive is skipped",
                        emit: emit)
                    return
                }
                afterEntry = false
            }
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if stack.count <= 2, case .object(_, true)? = stack.last {
                        stack[stack.count - 1] = .object(key: stringBytes, expectingKey: false)
                    }
                    if elidingString {
                        elidingString = false
                        captureByte(byte)
                        continue
                    }
                } else if stack.count <= 2, stringBytes.count < 16 {
                    stringBytes.append(byte)
                }
                if capturing && !skippingEntry && !elidingString {
                    if capture.count - captureStringStart > Self.maximumStringLength && !escaped {
                        // Too long for any field replay reads: held as "".
                        capture.removeSubrange((captureStringStart + 1)...)
                        elidingString = inString
                        if !inString { capture.append(byte) }
                    } else {
                        captureByte(byte)
                    }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                stringBytes.removeAll(keepingCapacity: true)
                if capturing { captureStringStart = capture.count }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < Self.maximumDepth else {
                    abandon(
                        "expected at most \(Self.maximumDepth) levels of nesting, found deeper; the rest of the archive is skipped",
                        emit: emit)
                    return
                }
                if byte == UInt8(ascii: "{") {
                    if case .array(true)? = stack.last {
                        capturing = true
                        skippingEntry = false
                        captureLine = line
                        capture.removeAll(keepingCapacity: true)
                    }
                    stack.append(.object(key: [], expectingKey: true))
                } else {
                    let isEntries = stack.count == 2 && Self.key(stack[0]) == Self.logKey && Self.key(stack[1]) == Self.entriesKey
                    if isEntries { sawEntries = true }
                    stack.append(.array(entries: isEntries))
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
                if byte == UInt8(ascii: "}"), capturing, case .array(true)? = stack.last {
                    captureByte(byte)
                    capturing = false
                    afterEntry = true
                    if skippingEntry {
                        skippingEntry = false
                    } else {
                        emit(entry())
                    }
                    // An entry's storage is not kept for the next one when
                    // it was large.
                    if capture.capacity > 64 * 1024 { capture = [] } else { capture.removeAll(keepingCapacity: true) }
                    continue
                }
            case UInt8(ascii: ","):
                if case .object(let key, _)? = stack.last { stack[stack.count - 1] = .object(key: key, expectingKey: true) }
            default:
                break
            }
            if capturing { captureByte(byte) }
        }
        if let warning = pendingWarning {
            pendingWarning = nil
            emit(.failure(warning))
        }
    }

    /// Adds a byte of the entry being read, unless it is being skipped;
    /// an entry over `maximumEntryLength` is dropped there, with a
    /// warning handed out at the end of the chunk.
    private mutating func captureByte(_ byte: UInt8) {
        guard !skippingEntry else { return }
        capture.append(byte)
        guard capture.count > Self.maximumEntryLength else { return }
        skippingEntry = true
        capture = []
        let diagnostic = Diagnostic(
            severity: .warning,
            location: SourceLocation(file: path, line: captureLine, column: 1),
            message: "expected an entry of at most \(Self.maximumEntryLength) bytes (long strings aside), found a larger one; it is skipped",
            suggestion: "export the archive without the responses' content")
        pendingWarning = diagnostic
    }

    /// An entry found too large at the byte before: handed out before
    /// anything else, so the order of warnings never depends on where
    /// chunks end.
    private var pendingWarning: Diagnostic?

    private mutating func abandon(_ message: String, emit: (Result<RecordedRequest?, Diagnostic>) -> Void) {
        abandoned = true
        capture = []
        stack = []
        emit(.failure(Diagnostic(
            severity: .warning,
            location: SourceLocation(file: path, line: line, column: 1), message: message,
            suggestion: "the archive is not valid JSON from here; export it again")))
    }

    /// The nesting and the entry bytes held now: what bounds the
    /// reader's memory.
    var held: (depth: Int, bytes: Int) { (stack.count, capture.count) }

    /// After the last bytes: an archive cut inside an entry, or one
    /// without `log.entries`, is reported.
    func finish() -> Diagnostic? {
        if abandoned { return nil }
        if capturing {
            return Diagnostic(
                severity: .warning,
                location: SourceLocation(file: path, line: captureLine, column: 1),
                message: "the archive ends inside this entry", suggestion: "the file may be truncated; export it again")
        }
        if !sawEntries {
            return Diagnostic(
                severity: .warning,
                location: SourceLocation(file: path, line: 1, column: 1),
                message: "not a HAR archive: expected {\"log\": {\"entries\": [...]}}",
                suggestion: "name the format with --format if this is another kind of recording")
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == 10 || byte == 13 || byte == UInt8(ascii: "\t")
    }

    private static let logKey = Array("log".utf8)
    private static let entriesKey = Array("entries".utf8)

    private static func key(_ container: Container) -> [UInt8]? {
        if case .object(let key, _) = container { key } else { nil }
    }

    private func entry() -> Result<RecordedRequest?, Diagnostic> {
        let location = SourceLocation(file: path, line: captureLine, column: 1)
        func problem(_ message: String) -> Result<RecordedRequest?, Diagnostic> {
            .failure(Diagnostic(severity: .warning, location: location, message: message, suggestion: "HAR 1.2 entries have startedDateTime, time, request and response"))
        }
        let object: JSONNode
        do {
            object = try JSONNode.parse(capture[...])
        } catch {
            return problem("this entry is not JSON: expected \(error.expected)")
        }
        guard let started = object["startedDateTime"]?.string, let start = RecordedTime.iso8601(started[...]) else {
            return problem("expected startedDateTime as ISO 8601 with a zone")
        }
        guard let request = object["request"], let method = request["method"]?.string, !method.isEmpty,
            let url = request["url"]?.string
        else {
            return problem("expected request.method and request.url")
        }
        guard let response = object["response"], let statusText = response["status"]?.numberText, let status = Int(statusText) else {
            return problem("expected response.status as a number")
        }
        var duration: Duration?
        if let text = object["time"]?.numberText, let nanos = RecordedTime.decimalNanoseconds(text) {
            duration = .nanoseconds(nanos / 1000)
        }
        let outcome: AttemptOutcome
        if status == 0 {
            outcome = .transport(Self.failure(named: response["_error"]?.string ?? object["_error"]?.string))
        } else {
            guard StatusPattern.validCodes.contains(status) else { return problem("expected response.status within 100-599, or 0") }
            var headers = ResponseHeaders()
            for header in response["headers"]?.array ?? [] {
                guard let name = header["name"]?.string, keptHeaders.contains(name.lowercased()), let value = header["value"]?.string else { continue }
                headers.append(name: name, value: value)
            }
            outcome = .response(status: status, headers: headers)
        }
        return .success(RecordedRequest(
            start: start, method: HTTPMethod(rawValue: method), endpoint: EndpointKey.fromTarget(url[...]),
            attempts: [RecordedAttempt(outcome: outcome, duration: duration)], location: location))
    }

    /// The transport failure a browser's `_error` names
    /// (`net::ERR_CONNECTION_REFUSED`).
    static func failure(named error: String?) -> TransportFailure {
        guard let error = error?.uppercased() else { return .connectionLost }
        if error.contains("TIMED_OUT") || error.contains("TIMEOUT") { return .timeout }
        if error.contains("REFUSED") { return .connectionRefused }
        if error.contains("NAME_NOT_RESOLVED") || error.contains("DNS") { return .dns }
        if error.contains("CERT") || error.contains("SSL") || error.contains("TLS") { return .tls }
        if error.contains("INTERNET_DISCONNECTED") { return .offline }
        if error.contains("ABORTED") { return .cancelled }
        return .connectionLost
    }
}
