import RetryPolicyCore

/// Reads nginx access-log lines into recorded requests.
///
/// nginx logs a request when it ends, so `$time_local` (or
/// `$time_iso8601`, `$msec`) minus `$request_time` is when it started.
/// `$upstream_status` holds one status per upstream attempt (`502, 502,
/// 200` when `proxy_next_upstream` moved on twice), and
/// `$upstream_response_time` the time of each; without them the request
/// is one attempt with `$status`. 499 (the client closed the connection)
/// is read as `cancelled`.
struct NginxLogParser: RecordingLineParser {
    /// The format given with `--nginx-log-format`; otherwise the first of
    /// ``NginxLogFormat/known`` that matches the first line is kept.
    var format: NginxLogFormat?
    let keptHeaders: Set<String>

    mutating func parse(line: ArraySlice<UInt8>, location: SourceLocation) -> Result<RecordedRequest?, Diagnostic> {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return .success(nil) }
        let fields: NginxLogFormat.Fields
        if let format {
            switch format.matchLine(line) {
            case .success(let matched): fields = matched
            case .failure(let error):
                return .failure(Diagnostic(
                    severity: .warning,
                    location: SourceLocation(file: location.file, line: location.line, column: error.column),
                    message: "not an access-log line: \(error.message)",
                    suggestion: "give the server's log_format with --nginx-log-format"))
            }
        } else if let found = NginxLogFormat.known.lazy.compactMap({ known in known.match(line).map { (known, $0) } }).first {
            format = found.0
            fields = found.1
        } else {
            return .failure(Diagnostic(
                severity: .warning,
                location: location, message: "the line matches neither combined nor ingress-nginx's upstreaminfo format",
                suggestion: "give the server's log_format with --nginx-log-format"))
        }
        return record(fields, in: line, location: location)
    }

    private func record(_ fields: NginxLogFormat.Fields, in line: ArraySlice<UInt8>, location: SourceLocation) -> Result<RecordedRequest?, Diagnostic> {
        func problem(_ message: String, _ suggestion: String? = nil) -> Result<RecordedRequest?, Diagnostic> {
            .failure(Diagnostic(severity: .warning, location: location, message: message, suggestion: suggestion))
        }
        let logged: Timestamp
        if let range = fields[.timeLocal] {
            guard let time = RecordedTime.nginxLocal(line[range]) else { return problem("expected $time_local as 10/Oct/2000:13:55:36 -0700") }
            logged = time
        } else if let range = fields[.timeISO8601] {
            guard let time = RecordedTime.iso8601(line[range]) else { return problem("expected $time_iso8601 as 2000-10-10T13:55:36-07:00") }
            logged = time
        } else if let range = fields[.msec] {
            guard let nanos = RecordedTime.decimalNanoseconds(line[range]) else { return problem("expected $msec as seconds since 1970, 1700000000.123") }
            logged = Timestamp(nanosecondsSince1970: nanos)
        } else {
            return problem("the line has no time")
        }
        var method = HTTPMethod.get
        let target: ArraySlice<UInt8>
        if let range = fields[.request] {
            let request = line[range]
            guard let space = request.firstIndex(of: 32), space > request.startIndex,
                request[..<space].allSatisfy({ (65...90).contains($0) || (97...122).contains($0) })
            else {
                return problem("expected a request line, METHOD /path HTTP/1.1", "requests nginx could not parse (400) have no method; filter them out")
            }
            method = RecordedMethod.method(request[..<space])
            let rest = request[(space + 1)...]
            target = rest[..<(rest.firstIndex(of: 32) ?? rest.endIndex)]
            guard !target.isEmpty else { return problem("expected a request line, METHOD /path HTTP/1.1") }
        } else if let range = fields[.requestURI] ?? fields[.uri] {
            target = line[range]
            if let methodRange = fields[.requestMethod] { method = RecordedMethod.method(line[methodRange]) }
        } else {
            return problem("the line has no request")
        }
        var requestTime: Duration?
        if let range = fields[.requestTime] {
            guard let nanos = RecordedTime.decimalNanoseconds(line[range]) else { return problem("expected $request_time in seconds, 0.120") }
            // It moves the request's start back: bounded as a duration is.
            guard Duration.nanoseconds(nanos) <= RecordedRequest.maximumAttemptDuration else {
                return problem(
                    "expected $request_time between 0 and \(RecordedRequest.maximumAttemptDuration.formattedForHumans), found a longer one; the line is skipped")
            }
            requestTime = .nanoseconds(nanos)
        }
        var headers = ResponseHeaders()
        for header in fields.headers where keptHeaders.contains(header.name) && headers[header.name] == nil {
            headers.append(name: header.name, value: String(decoding: line[header.value], as: UTF8.self))
        }
        var attempts: [RecordedAttempt] = []
        if let range = fields[.upstreamStatus] {
            let statuses = Self.items(line[range])
            guard statuses.count <= RecordedRequest.maximumAttempts else {
                return problem(
                    "expected at most \(RecordedRequest.maximumAttempts) upstream attempts for one request, found \(statuses.count); the line is skipped",
                    "is the line from a real recording? fix or drop it")
            }
            let times = fields[.upstreamResponseTime].map { Self.items(line[$0]) } ?? []
            attempts.reserveCapacity(statuses.count)
            for (index, item) in statuses.enumerated() {
                var duration: Duration?
                if index < times.count, let nanos = RecordedTime.decimalNanoseconds(times[index]) { duration = .nanoseconds(nanos) }
                if item.count == 1 && item.first == UInt8(ascii: "-") {
                    // No answer from this server (it could not be reached).
                    attempts.append(RecordedAttempt(outcome: .transport(.connectionRefused), duration: duration))
                    continue
                }
                guard let status = Self.status(item) else {
                    return problem("expected $upstream_status as statuses separated by ', ' or ' : ', such as 502, 200")
                }
                attempts.append(RecordedAttempt(outcome: Self.outcome(status), duration: duration))
            }
        }
        if attempts.isEmpty {
            guard let range = fields[.status], let status = Self.status(line[range]) else {
                return problem("expected $status as a number within 100-599")
            }
            attempts.append(RecordedAttempt(outcome: Self.outcome(status), duration: requestTime))
        }
        if !headers.fields.isEmpty, case .response(let status, _) = attempts[attempts.count - 1].outcome {
            attempts[attempts.count - 1].outcome = .response(status: status, headers: headers)
        }
        let start = requestTime.map { logged + (.zero - $0) } ?? logged
        return .success(RecordedRequest(
            start: start, method: method, endpoint: EndpointKey.fromTarget(target), attempts: attempts, location: location))
    }

    /// A status of three digits within 100-599.
    static func status(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count == 3 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return StatusPattern.validCodes.contains(value) ? value : nil
    }

    static func outcome(_ status: Int) -> AttemptOutcome {
        status == 499 ? .transport(.cancelled) : .status(status)
    }

    /// The entries of an upstream list, split at `, ` and ` : `.
    static func items(_ list: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var items: [ArraySlice<UInt8>] = []
        var start = list.startIndex
        var index = list.startIndex
        func flush() {
            var item = list[start..<index]
            while item.first == 32 { item = item.dropFirst() }
            while item.last == 32 { item = item.dropLast() }
            if !item.isEmpty { items.append(item) }
        }
        while index < list.endIndex {
            if list[index] == UInt8(ascii: ",") || list[index] == UInt8(ascii: ":") {
                flush()
                start = index + 1
            }
            index += 1
        }
        flush()
        return items
    }
}

extension Substring {
    /// `retry_after` as the header name `retry-after` (nginx writes
    /// headers' dashes as underscores in variable names).
    var replacingUnderscores: String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "_" ? "-" : $0 })).lowercased()
    }
}
