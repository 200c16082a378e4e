import RetryPolicyCore

/// Reads replay's own JSONL: one object per line.
///
/// ```
/// {"time": "2026-11-17T14:03:07.120Z", "method": "GET", "endpoint": "/v1/search",
///  "status": 503, "duration_ms": 120, "headers": {"Retry-After": "2"}}
/// ```
///
/// `time` is RFC 3339 or seconds since 1970; `endpoint` or `url`; `status`
/// or `transport` (a transport class such as `timeout`); `method`
/// (default GET), `duration_ms` and `headers` are optional. Other members
/// are ignored, and of `headers` only those a policy's `retry_after`
/// reads are kept.
struct JSONLinesParser: RecordingLineParser {
    let keptHeaders: Set<String>

    mutating func parse(line: ArraySlice<UInt8>, location: SourceLocation) -> Result<RecordedRequest?, Diagnostic> {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return .success(nil) }
        let first = line.firstIndex { $0 != 32 && $0 != 9 }!
        guard line[first] == UInt8(ascii: "{") else {
            return .failure(Diagnostic(
                severity: .warning,
                location: SourceLocation(file: location.file, line: location.line, column: first - line.startIndex + 1),
                message: "expected a JSON object, '{'", suggestion: "each line is one JSON object"))
        }
        let object: JSONNode
        do {
            object = try JSONNode.parse(line)
        } catch {
            return .failure(Diagnostic(
                severity: .warning,
                location: SourceLocation(file: location.file, line: location.line, column: error.offset + 1),
                message: "not JSON: expected \(error.expected)", suggestion: "each line is one JSON object"))
        }
        return Self.record(object, keptHeaders: keptHeaders, location: location)
    }

    static func record(_ object: JSONNode, keptHeaders: Set<String>, location: SourceLocation) -> Result<RecordedRequest?, Diagnostic> {
        func problem(_ message: String, _ suggestion: String? = nil) -> Result<RecordedRequest?, Diagnostic> {
            .failure(Diagnostic(severity: .warning, location: location, message: message, suggestion: suggestion))
        }
        guard object.isObject else { return problem("expected a JSON object") }
        let start: Timestamp
        switch object["time"] {
        case .string(let text)?:
            guard let time = RecordedTime.iso8601(text[...]) else {
                return problem("expected \"time\" as RFC 3339 with a zone, 2026-11-17T14:03:07.120Z")
            }
            start = time
        case .number(let text)?:
            guard let time = RecordedTime.epochSeconds(text) else { return problem("expected \"time\" as seconds since 1970, 1700000000.123") }
            start = time
        default:
            return problem("expected a \"time\" member", "add \"time\": \"2026-11-17T14:03:07.120Z\"")
        }
        var method = HTTPMethod.get
        if let value = object["method"] {
            guard let text = value.string, !text.isEmpty, text.allSatisfy({ $0.isLetter }) else { return problem("expected \"method\" as a string such as \"GET\"") }
            method = HTTPMethod(rawValue: text)
        }
        let endpoint: String
        if let text = object["endpoint"]?.string ?? object["url"]?.string, !text.isEmpty {
            endpoint = EndpointKey.fromTarget(text[...])
        } else {
            return problem("expected an \"endpoint\" or \"url\" member (a string)")
        }
        var duration: Duration?
        if let value = object["duration_ms"] {
            guard let text = value.numberText, let nanos = RecordedTime.decimalNanoseconds(text) else {
                return problem("expected \"duration_ms\" as a non-negative number")
            }
            duration = .nanoseconds(nanos / 1000)
        }
        var headers = ResponseHeaders()
        if let value = object["headers"] {
            guard case .object(let members) = value else { return problem("expected \"headers\" as an object of strings") }
            for (name, value) in members.sorted(by: { $0.key < $1.key }) where keptHeaders.contains(name.lowercased()) {
                guard let text = value.string else { return problem("expected the header \(name) as a string") }
                headers.append(name: name, value: text)
            }
        }
        let outcome: AttemptOutcome
        if let value = object["status"] {
            guard let text = value.numberText, let status = Int(text), StatusPattern.validCodes.contains(status) else {
                return problem("expected \"status\" as a number within 100-599")
            }
            outcome = .response(status: status, headers: headers)
        } else if let value = object["transport"] {
            guard let text = value.string, let failure = TransportFailure(rawValue: text) else {
                let classes = TransportFailure.allCases.map(\.rawValue).joined(separator: ", ")
                return problem("expected \"transport\" as one of \(classes)")
            }
            outcome = .transport(failure)
        } else {
            return problem("expected a \"status\" or \"transport\" member")
        }
        return .success(RecordedRequest(
            start: start, method: method, endpoint: endpoint, attempts: [RecordedAttempt(outcome: outcome, duration: duration)],
            location: location))
    }
}
