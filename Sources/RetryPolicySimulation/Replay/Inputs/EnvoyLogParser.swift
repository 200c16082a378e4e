import RetryPolicyCore

/// Reads lines of Envoy's default access-log format:
///
/// ```
/// [%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS%
/// %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%"
/// "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"
/// ```
///
/// A number after the last quoted field is read as
/// `%UPSTREAM_REQUEST_ATTEMPT_COUNT%`. Response flags that mean the
/// upstream failed below HTTP are read as that transport failure: `UT`
/// (upstream request timeout) as `timeout`, `UF` (upstream connection
/// failure) as `connection_refused`, `UC`, `UR` and `LR` (connection
/// terminated or reset) as `connection_lost`, `DC` (the client went away)
/// as `cancelled`; a response code of 0 with no such flag is
/// `connection_lost`. Other flags keep the response code.
struct EnvoyLogParser: RecordingLineParser {
    static func looksLikeEnvoy(_ line: Substring) -> Bool {
        guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return false }
        return RecordedTime.iso8601(line[line.index(after: line.startIndex)..<close]) != nil
            && line[close...].hasPrefix("] \"")
    }

    mutating func parse(line: ArraySlice<UInt8>, location: SourceLocation) -> Result<RecordedRequest?, Diagnostic> {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return .success(nil) }
        let text = Substring(decoding: line, as: UTF8.self)
        func problem(_ at: Substring.Index, _ message: String) -> Result<RecordedRequest?, Diagnostic> {
            let column = text.utf8.distance(from: text.startIndex, to: at) + 1
            return .failure(Diagnostic(
                severity: .warning,
                location: SourceLocation(file: location.file, line: location.line, column: column), message: message,
                suggestion: "replay reads Envoy's default access-log format; convert other formats to JSONL (docs/replay.md)"))
        }
        guard text.hasPrefix("["), let close = text.firstIndex(of: "]") else {
            return problem(text.startIndex, "expected '[%START_TIME%]' at the start of the line")
        }
        guard let start = RecordedTime.iso8601(text[text.index(after: text.startIndex)..<close]) else {
            return problem(text.index(after: text.startIndex), "expected %START_TIME% as 2026-11-17T14:03:07.120Z")
        }
        var rest = text[text.index(after: close)...]
        guard rest.hasPrefix(" \"") else { return problem(rest.startIndex, "expected ' \"' before the request line") }
        rest = rest.dropFirst(2)
        guard let endQuote = rest.firstIndex(of: "\"") else { return problem(rest.startIndex, "expected the quoted request line") }
        let requestLine = rest[..<endQuote].split(separator: " ")
        guard requestLine.count >= 2 else { return problem(rest.startIndex, "expected \"METHOD PATH PROTOCOL\"") }
        rest = rest[rest.index(after: endQuote)...]
        let fields = rest.split(separator: " ", maxSplits: 6)
        guard fields.count >= 5 else { return problem(rest.startIndex, "expected the response code, flags, bytes and duration") }
        guard let code = Int(fields[0]), code == 0 || StatusPattern.validCodes.contains(code) else {
            return problem(fields[0].startIndex, "expected %RESPONSE_CODE% as 0 or 100-599")
        }
        let flags = fields[1] == "-" ? [] : fields[1].split(separator: ",")
        var duration: Duration?
        if fields[4] != "-" {
            let longest = RecordedRequest.maximumAttemptDuration / .milliseconds(1)
            guard let milliseconds = Int64(fields[4]), milliseconds >= 0, Double(milliseconds) <= longest else {
                return problem(
                    fields[4].startIndex,
                    "expected %DURATION% in milliseconds, between 0 and \(Int64(longest)); the line is skipped")
            }
            duration = .milliseconds(milliseconds)
        }
        var undescribed = 0
        if fields.count == 7 {
            // The quoted fields, then perhaps an appended attempt count.
            let tail = fields[6]
            if let lastQuote = tail.lastIndex(of: "\"") {
                let after = tail[tail.index(after: lastQuote)...].trimmingSpaces
                if let count = Int(after), count >= 1 {
                    guard count <= RecordedRequest.maximumAttempts else {
                        return problem(
                            after.startIndex,
                            "expected %UPSTREAM_REQUEST_ATTEMPT_COUNT% between 1 and \(RecordedRequest.maximumAttempts); the line is skipped")
                    }
                    undescribed = count - 1
                } else if !after.isEmpty, after.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    // Digits too many for a count.
                    return problem(
                        after.startIndex,
                        "expected %UPSTREAM_REQUEST_ATTEMPT_COUNT% between 1 and \(RecordedRequest.maximumAttempts); the line is skipped")
                }
            }
        }
        let outcome: AttemptOutcome
        if flags.contains("UT") { outcome = .transport(.timeout) }
        else if flags.contains("UF") { outcome = .transport(.connectionRefused) }
        else if flags.contains("UC") || flags.contains("UR") || flags.contains("LR") { outcome = .transport(.connectionLost) }
        else if flags.contains("DC") { outcome = .transport(.cancelled) }
        else if code == 0 { outcome = .transport(.connectionLost) }
        else { outcome = .status(code) }
        return .success(RecordedRequest(
            start: start, method: HTTPMethod(rawValue: String(requestLine[0])),
            endpoint: EndpointKey.fromTarget(requestLine[1]), attempts: [RecordedAttempt(outcome: outcome, duration: duration)],
            undescribedAttempts: undescribed, location: location))
    }
}
