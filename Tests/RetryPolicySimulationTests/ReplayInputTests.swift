import PropertyBased
import RetryPolicyCore
import Testing

@testable import RetryPolicySimulation

/// Reads every record of `text` as `format`, `chunk` bytes at a time.
func readRecords(
    _ text: String, format: TrafficFormat?, path: String = "rec", chunk: Int = 1 << 16,
    options: RecordingOptions = RecordingOptions(keptHeaders: ["retry-after"])
) throws -> (records: [RecordedRequest], stream: RecordingStream) {
    var bytes = Array(text.utf8)[...]
    var stream = RecordingStream(path: path, format: format, options: options) {
        guard !bytes.isEmpty else { return nil }
        let piece = Array(bytes.prefix(chunk))
        bytes = bytes.dropFirst(chunk)
        return piece
    }
    var records: [RecordedRequest] = []
    while let record = try stream.next() { records.append(record) }
    return (records, stream)
}

@Suite("Replay inputs")
struct ReplayInputTests {
    @Test("nginx combined: the start is the logged time less $request_time when the extension has it")
    func nginxCombined() throws {
        let log = """
            10.0.0.1 - - [17/Nov/2026:14:03:07 +0100] "GET /v1/items/42?token=x HTTP/1.1" 200 512 "-" "curl/8.0"
            10.0.0.1 - alice [17/Nov/2026:14:03:08 +0100] "POST /v1/orders HTTP/1.1" 503 0 "-" "curl/8.0" rt=0.250 urt="0.100, 0.150" us="502, 503"

            """
        let (records, stream) = try readRecords(log, format: nil)
        #expect(stream.format == .nginx)
        #expect(stream.warningCount == 0)
        #expect(records.count == 2)
        #expect(records[0].endpoint == "/v1/items/{id}")
        #expect(records[0].method == .get)
        #expect(records[0].attempts == [RecordedAttempt(outcome: .status(200), duration: nil)])
        #expect(RecordedTime.format(records[0].start) == "2026-11-17T13:03:07.000Z")
        #expect(records[1].method == .post)
        #expect(records[1].attempts.map(\.outcome) == [.status(502), .status(503)])
        #expect(records[1].attempts.map(\.duration) == [.milliseconds(100), .milliseconds(150)])
        #expect(RecordedTime.format(records[1].start) == "2026-11-17T13:03:07.750Z")
    }

    @Test("ingress-nginx's upstreaminfo: one status and time per upstream attempt, ', ' and ' : ' separated")
    func nginxIngress() throws {
        let line = #"10.0.0.1 - - [17/Nov/2026:14:03:07 +0000] "GET /search HTTP/2.0" 200 10 "-" "ua" 120 0.300 [default-api-80] [] 10.1.0.1:80, 10.1.0.2:80 : 10.1.0.3:80 0, 0 : 10 0.100, 0.100 : 0.100 502, 504 : 200 abc123"#
        let (records, stream) = try readRecords(line, format: .nginx)
        #expect(stream.warningCount == 0, "\(stream.warnings)")
        #expect(records.count == 1)
        #expect(records[0].attempts.map(\.outcome) == [.status(502), .status(504), .status(200)])
        #expect(records[0].recordedAttemptCount == 3)
    }

    @Test("a given log_format is read, and a line it does not match is a located warning")
    func nginxGivenFormat() throws {
        let format = try NginxLogFormat.parse(#"$msec "$request" $status $upstream_status $request_time "$http_authorization""#).get()
        let log = """
            1763388000.500 "GET /a HTTP/1.1" 200 503, 200 0.020 "Bearer SECRET"
            garbage line
            1763388001.000 "GET /a HTTP/1.1" 200 - 0.010 "-"

            """
        let (records, stream) = try readRecords(log, format: .nginx, options: RecordingOptions(nginxFormat: format))
        #expect(records.count == 2)
        #expect(records[0].attempts.map(\.outcome) == [.status(503), .status(200)])
        #expect(records[1].attempts.map(\.outcome) == [.status(200)])
        #expect(stream.warningCount == 1)
        let warning = try #require(stream.warnings.first)
        #expect(warning.location == SourceLocation(file: "rec", line: 2, column: 1))
        #expect(warning.description.contains("rec:2:1: warning:"))
        #expect(!"\(records)".contains("SECRET"))
    }

    @Test("a log_format replay cannot use is refused with its column")
    func nginxFormatErrors() {
        guard case .failure(let error) = NginxLogFormat.parse("$remote_addr $status") else {
            Issue.record("a format without time was accepted")
            return
        }
        #expect(error.message.contains("no time"))
        guard case .failure(let glued) = NginxLogFormat.parse("$time_local$request $status") else {
            Issue.record("two adjacent variables were accepted")
            return
        }
        #expect(glued.column == 12)
    }

    @Test("Envoy's default format: flags name transport failures, an appended number is the attempt count")
    func envoy() throws {
        let log = """
            [2026-11-17T14:03:07.120Z] "GET /v1/search?q=1 HTTP/1.1" 200 - 0 512 12 10 "-" "curl/8" "id-1" "api" "10.0.0.2:80"
            [2026-11-17T14:03:08.000Z] "GET /v1/search HTTP/1.1" 503 UF,URX 0 91 30 - "-" "curl/8" "id-2" "api" "10.0.0.2:80" 3
            [2026-11-17T14:03:09.000Z] "GET /v1/search HTTP/1.1" 504 UT 0 24 15000 - "-" "curl/8" "id-3" "api" "10.0.0.2:80"
            [2026-11-17T14:03:09.500Z] "GET /v1/search HTTP/1.1" 0 DC 0 0 5 - "-" "curl/8" "id-4" "api" "-"
            [2026-11-17 bad
            """
        let (records, stream) = try readRecords(log, format: nil)
        #expect(stream.format == .envoy)
        #expect(records.map { $0.attempts[0].outcome } == [
            .status(200), .transport(.connectionRefused), .transport(.timeout), .transport(.cancelled),
        ])
        #expect(records[1].recordedAttemptCount == 3)
        #expect(records[2].attempts[0].duration == .seconds(15))
        #expect(stream.warningCount == 1)
        #expect(stream.warnings.first?.location.line == 5)
    }

    @Test("HAR entries are read as the bytes arrive, one byte at a time as well as whole")
    func har() throws {
        let har = """
            {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"},
              "pages": [{"id": "entries", "title": "[not {entries}]"}],
              "entries": [
                {"startedDateTime": "2026-11-17T14:03:07.120+01:00", "time": 42.5,
                 "request": {"method": "GET", "url": "https://api.example.com/v1/a?x=1", "headers": [{"name": "Authorization", "value": "Bearer SECRET"}],
                   "cookies": [{"name": "session", "value": "SECRET"}]},
                 "response": {"status": 429, "headers": [{"name": "Retry-After", "value": "3"}, {"name": "Set-Cookie", "value": "SECRET"}],
                   "content": {"text": "SECRET body with } and ] and \\" quote"}}},
                {"startedDateTime": "2026-11-17T13:03:08Z", "time": 10,
                 "request": {"method": "POST", "url": "https://api.example.com/v1/b"},
                 "response": {"status": 0, "_error": "net::ERR_CONNECTION_REFUSED"}},
                {"startedDateTime": "yesterday", "request": {}, "response": {}}
              ]}}
            """
        for chunk in [1, 7, 1 << 16] {
            let (records, stream) = try readRecords(har, format: nil, chunk: chunk)
            #expect(stream.format == .har)
            #expect(records.count == 2)
            #expect(records[0].attempts[0].outcome == .response(status: 429, headers: ["Retry-After": "3"]))
            #expect(records[0].attempts[0].duration == .microseconds(42_500))
            #expect(records[0].endpoint == "/v1/a")
            #expect(RecordedTime.format(records[0].start) == "2026-11-17T13:03:07.120Z")
            #expect(records[1].attempts[0].outcome == .transport(.connectionRefused))
            #expect(stream.warningCount == 1)
            #expect(stream.warnings.first?.location.line == 12)
            #expect(!"\(records)".contains("SECRET"))
        }
    }

    @Test("an archive without log.entries, and one cut short, are warnings")
    func harBroken() throws {
        let (none, stream) = try readRecords(#"{"log": {"pages": []}}"#, format: .har)
        #expect(none.isEmpty)
        #expect(stream.warnings.first?.message.contains("not a HAR archive") == true)
        let (cut, cutStream) = try readRecords(#"{"log": {"entries": [{"startedDateTime": "2026"#, format: .har)
        #expect(cut.isEmpty)
        #expect(cutStream.warnings.first?.message.contains("ends inside this entry") == true)
    }

    @Test("JSONL: status or transport, RFC 3339 or epoch time, only the retry headers kept; errors at their column")
    func jsonl() throws {
        let log = """
            {"time": "2026-11-17T14:03:07.120Z", "method": "GET", "endpoint": "/v1/search", "status": 503, "duration_ms": 120, "headers": {"Retry-After": "2", "Cookie": "SECRET"}}
            {"time": 1763388000.5, "url": "https://h/v1/search", "transport": "timeout"}
            {"time": "2026-11-17T14:03:07Z", "endpoint": "/x", "status": 700}
            {"time": "2026-11-17T14:03:07Z", "endpoint": "/x", "status": 200,
            {"time": "2026-11-17T14:03:07", "endpoint": "/x", "status": 200}
            """
        let (records, stream) = try readRecords(log, format: nil)
        #expect(stream.format == .jsonl)
        #expect(records.count == 2)
        #expect(records[0].attempts[0] == RecordedAttempt(outcome: .response(status: 503, headers: ["Retry-After": "2"]), duration: .milliseconds(120)))
        #expect(records[1].attempts[0].outcome == .transport(.timeout))
        #expect(records[1].method == .get)
        #expect(stream.warnings.map(\.location.line) == [3, 4, 5])
        #expect(stream.warnings[0].message.contains("100-599"))
        #expect(stream.warnings[1].location.column > 60)
        #expect(stream.warnings[2].message.contains("with a zone"))
        #expect(!"\(records)".contains("SECRET"))
    }

    @Test("the format is told from the content, and unknown content is an error naming --format")
    func detection() throws {
        #expect(TrafficFormat.detect(Array(#"{"log":{"entries":[]}}"#.utf8)[...]) == .har)
        #expect(TrafficFormat.detect(Array("{\n  \"log\": {\n".utf8)[...]) == .har)
        #expect(TrafficFormat.detect(Array(#"{"time": 1, "endpoint": "/", "status": 200}"#.utf8)[...]) == .jsonl)
        #expect(throws: ReplayInputError.self) { try readRecords("hello world\n", format: nil) }
    }

    @Test("records out of time order are sorted within the window; later ones are replayed at the time reached")
    func ordering() throws {
        func line(_ second: Int) -> String { #"{"time": \#(1763388000 + second), "endpoint": "/", "status": 200}"# }
        let first = [0, 5, 3, 100, 200, 30].map(line).joined(separator: "\n")
        let second = [1, 4, 300].map(line).joined(separator: "\n")
        let options = RecordingOptions()
        func stream(_ text: String, _ path: String) -> RecordingStream {
            var bytes: [UInt8]? = Array(text.utf8)
            return RecordingStream(path: path, format: .jsonl, options: options) { defer { bytes = nil }; return bytes }
        }
        var merged = TimeOrderedRecords(streams: [stream(first, "a"), stream(second, "b")], window: .seconds(60))
        var seconds: [Int64] = []
        while let record = try merged.next() { seconds.append(record.start.nanosecondsSince1970 / 1_000_000_000 - 1763388000) }
        #expect(seconds == [0, 1, 3, 4, 5, 100, 100, 200, 300])
        #expect(merged.lateCount == 1)
        #expect(merged.warnings.contains { $0.location == SourceLocation(file: "a", line: 6, column: 1) })
    }

    @Test("no reader crashes or hangs on arbitrary bytes")
    func arbitraryBytes() async {
        await propertyCheck(count: 300, input: Gen.int(in: 0...255).array(of: 0...400), Gen.int(in: 0...3)) { bytes, which in
            let format = TrafficFormat.allCases[which]
            let text = bytes.map(UInt8.init)
            var given: [UInt8]? = text
            var stream = RecordingStream(path: "fuzz", format: format, options: RecordingOptions()) {
                defer { given = nil }
                return given
            }
            var count = 0
            while let record = try? stream.next() {
                count += 1
                #expect(!record.attempts.isEmpty)
            }
            #expect(count + stream.warningCount <= text.count + 2)
        }
    }

    @Test("a HAR entry closed early: one warning for it and one for the rest, not an entry for each of its parts")
    func harEntryClosedEarly() throws {
        // `{"startedDateTime"}` closes the entry where its first value
        // should start; what follows holds objects (the request, the
        // response) that are no entries of their own.
        let text = Array(
            #"{"log": {"entries": [{"startedDateTime"} "2026-11-17T13:03:08Z", "time": 10, "request": {"method": "GET", "url": "/"}, "response": {"status": 200}}, {"startedDateTime": "2026-11-17T13:03:09Z", "time": 10, "request": {"method": "GET", "url": "/"}, "response": {"status": 200}}]}}"#
                .utf8)
        var given: [UInt8]? = text
        var stream = RecordingStream(path: "early.har", format: .har, options: RecordingOptions()) {
            defer { given = nil }
            return given
        }
        var records = 0
        while try stream.next() != nil { records += 1 }
        #expect(records == 0)
        #expect(stream.warningCount == 2)
    }

    @Test("a time past 2262 (beyond a 64-bit count of nanoseconds) is a warning, not a crash")
    func timeBeyondTimestamps() throws {
        let lines = [
            #"{"time": "2300-01-01T00:00:00Z", "method": "GET", "endpoint": "/v1/search", "status": 503, "duration_ms": 120}"#,
            #"{"time": "2026-11-17T14:03:07.120Z", "method": "GET", "endpoint": "/v1/search", "status": 200, "duration_ms": 120}"#,
        ]
        var given: [UInt8]? = Array(lines.joined(separator: "\n").utf8)
        var stream = RecordingStream(path: "far.jsonl", format: .jsonl, options: RecordingOptions()) {
            defer { given = nil }
            return given
        }
        var records = 0
        while try stream.next() != nil { records += 1 }
        #expect(records == 1)
        #expect(stream.warningCount == 1)
    }

    @Test("no reader crashes on lines that are almost right")
    func mutatedLines() async {
        let lines = [
            #"10.0.0.1 - - [17/Nov/2026:14:03:08 +0100] "POST /v1/orders HTTP/1.1" 503 0 "-" "curl/8.0" rt=0.250 urt="0.100, 0.150" us="502, 503""#,
            #"[2026-11-17T14:03:08.000Z] "GET /v1/search HTTP/1.1" 503 UF,URX 0 91 30 - "-" "curl/8" "id-2" "api" "10.0.0.2:80" 3"#,
            #"{"time": "2026-11-17T14:03:07.120Z", "method": "GET", "endpoint": "/v1/search", "status": 503, "duration_ms": 120}"#,
            #"{"log": {"entries": [{"startedDateTime": "2026-11-17T13:03:08Z", "time": 10, "request": {"method": "GET", "url": "/"}, "response": {"status": 200}}]}}"#,
        ]
        await propertyCheck(count: 400, input: Gen.int(in: 0...3), Gen.int(in: 0...10_000).array(of: 1...6), Gen.int(in: 0...255)) { which, cuts, byte in
            var text = Array(lines[which].utf8)
            for cut in cuts where !text.isEmpty { text[cut % text.count] = UInt8(byte) }
            var given: [UInt8]? = text
            var stream = RecordingStream(path: "m", format: TrafficFormat.allCases[[1, 2, 3, 0][which]], options: RecordingOptions()) {
                defer { given = nil }
                return given
            }
            while (try? stream.next()) != nil {}
            // A mutation may split a line in two (a newline) or cut an entry short.
            #expect(stream.warningCount <= text.filter { $0 == 10 }.count + 2)
        }
    }
}
