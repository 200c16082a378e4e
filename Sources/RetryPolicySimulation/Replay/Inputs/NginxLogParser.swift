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

    mutating func parse(line: ArraySlice<UInt8>, location: SourceLocation) -> Result<RecordedRequest?, ReplayDiagnostic> {
        if line.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return .success(nil) }
        let fields: NginxLogFormat.Fields
        if let format {
            switch format.matchLine(line) {
            case .success(let matched): fields = matched
            case .failure(let error):
                return .failure(ReplayDiagnostic(
                    location: SourceLocation(file: location.file, line: location.line, column: error.column),
                    message: "not an access-log line: \(error.message)",
                    suggestion: "give the server's log_format with --nginx-log-format"))
            }
        } else if let found = NginxLogFormat.known.lazy.compactMap({ known in known.match(line).map { (known, $0) } }).first {
            format = found.0
            fields = found.1
        } else {
            return .failure(ReplayDiagnostic(
                location: location, message: "the line matches neither combined nor ingress-nginx's upstreaminfo format",
                suggestion: "give the server's log_format with --nginx-log-format"))
        }
        return record(fields.values, location: location)
    }

    private func record(_ values: [String: Substring], location: SourceLocation) -> Result<RecordedRequest?, ReplayDiagnostic> {
        func problem(_ message: String, _ suggestion: String? = nil) -> Result<RecordedRequest?, ReplayDiagnostic> {
            .failure(ReplayDiagnostic(location: location, message: message, suggestion: suggestion))
        }
        let logged: Timestamp
        if let text = values["time_local"] {
            guard let time = RecordedTime.nginxLocal(text) else { return problem("expected $time_local as 10/Oct/2000:13:55:36 -0700") }
            logged = time
        } else if let text = values["time_iso8601"] {
            guard let time = RecordedTime.iso8601(text) else { return problem("expected $time_iso8601 as 2000-10-10T13:55:36-07:00") }
            logged = time
        } else if let text = values["msec"] {
            guard let time = RecordedTime.epochSeconds(text) else { return problem("expected $msec as seconds since 1970, 1700000000.123") }
            logged = time
        } else {
            return problem("the line has no time")
        }
        var method = HTTPMethod.get
        var target: Substring
        if let request = values["request"] {
            let parts = request.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 2, parts[0].allSatisfy({ $0.isLetter }) else {
                return problem("expected a request line, METHOD /path HTTP/1.1", "requests nginx could not parse (400) have no method; filter them out")
            }
            method = HTTPMethod(rawValue: String(parts[0]))
            target = parts[1]
        } else if let uri = values["request_uri"] ?? values["uri"] {
            target = uri
            if let text = values["request_method"] { method = HTTPMethod(rawValue: String(text)) }
        } else {
            return problem("the line has no request")
        }
        var requestTime: Duration?
        if let text = values["request_time"], text != "-" {
            guard let nanos = RecordedTime.decimalNanoseconds(text) else { return problem("expected $request_time in seconds, 0.120") }
            requestTime = .nanoseconds(nanos)
        }
        var headers = ResponseHeaders()
        for (name, value) in values where value != "-" && !value.isEmpty {
            let header: Substring
            if name.hasPrefix("sent_http_") { header = name.dropFirst("sent_http_".count) }
            else if name.hasPrefix("upstream_http_") { header = name.dropFirst("upstream_http_".count) }
            else { continue }
            let headerName = header.replacingUnderscores
            if keptHeaders.contains(headerName), headers[headerName] == nil { headers.append(name: headerName, value: String(value)) }
        }
        var attempts: [RecordedAttempt] = []
        if let list = values["upstream_status"], list != "-" {
            let statuses = Self.items(list)
            let times = values["upstream_response_time"].map(Self.items) ?? []
            for (index, item) in statuses.enumerated() {
                var duration: Duration?
                if index < times.count, let nanos = RecordedTime.decimalNanoseconds(times[index]) { duration = .nanoseconds(nanos) }
                if item == "-" {
                    // No answer from this server (it could not be reached).
                    attempts.append(RecordedAttempt(outcome: .transport(.connectionRefused), duration: duration))
                    continue
                }
                guard let status = Int(item), StatusPattern.validCodes.contains(status) else {
                    return problem("expected $upstream_status as statuses separated by ', ' or ' : ', such as 502, 200")
                }
                attempts.append(RecordedAttempt(outcome: Self.outcome(status), duration: duration))
            }
        }
        if attempts.isEmpty {
            guard let text = values["status"], let status = Int(text), StatusPattern.validCodes.contains(status) else {
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

    static func outcome(_ status: Int) -> AttemptOutcome {
        status == 499 ? .transport(.cancelled) : .status(status)
    }

    /// The entries of an upstream list, split at `, ` and ` : `.
    static func items(_ list: Substring) -> [Substring] {
        list.split(whereSeparator: { $0 == "," || $0 == ":" }).map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }
}

extension Substring {
    /// `retry_after` as the header name `retry-after` (nginx writes
    /// headers' dashes as underscores in variable names).
    var replacingUnderscores: String {
        String(String.UnicodeScalarView(unicodeScalars.map { $0 == "_" ? "-" : $0 })).lowercased()
    }
}
