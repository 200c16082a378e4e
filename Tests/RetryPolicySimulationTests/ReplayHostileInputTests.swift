import PropertyBased
import RetryPolicyCore
import RetryPolicyTestSupport
import Testing

@testable import RetryPolicySimulation

/// Recordings written to exhaust replay: far-apart times, absurd
/// durations and attempt counts, deep or huge archives, endless lines,
/// control characters. Each must be read in memory and time that follow
/// the number of records, with located warnings.
@Suite("Replay hostile inputs")
struct ReplayHostileInputTests {
    /// Every record of `text` through the time-ordered merge, replayed
    /// under a retrying policy, with the report in every form.
    static func replayText(_ text: String, format: TrafficFormat, window: Duration = .seconds(1)) throws
        -> (run: ReplayRun, stream: RecordingStream, report: ReplayReport)
    {
        let (records, stream) = try readRecords(text, format: format)
        var index = 0
        let run = try ReplayDriver.run(
            policy: TestPolicies.tmdb(), configuration: .init(bucket: .seconds(1), window: window, seed: 1)
        ) {
            defer { index += 1 }
            return index < records.count ? records[index] : nil
        }
        let report = ReplayReport(
            run: run, baseline: run, inputs: [.init(path: "rec", format: format, requests: records.count, warnings: stream.warningCount)],
            seed: 1)
        return (run, stream, report)
    }

    static func jsonl(_ time: String, status: Int = 503) -> String {
        #"{"time": \#(time), "endpoint": "/v1/search", "status": \#(status), "duration_ms": 20}"#
    }

    @Test("two JSONL lines 56 years apart hold two windows, not 1.8 billion", arguments: [
        (#""1970-01-01T00:00:00Z""#, #""2026-01-01T00:00:00Z""#),
        (#""1970-01-01T00:00:00Z""#, #""2262-04-11T23:47:16Z""#),
        ("0", "9223372029.5"),
    ])
    func decadesApart(first: String, last: String) throws {
        let (run, stream, report) = try Self.replayText(Self.jsonl(first) + "\n" + Self.jsonl(last) + "\n", format: .jsonl, window: .milliseconds(1))
        #expect(stream.warningCount == 0)
        #expect(run.requests == 2)
        #expect(run.recordedLoad.heldWindows == 2)
        #expect(run.recordedLoad.span > 1_000_000_000_000, "the span is decades of 1 ms windows")
        // Each attempt the policy sent is at most one window.
        #expect(run.load.heldWindows <= run.attempts)
        #expect(run.peakHeldBuckets <= 3)
        // Reports render the gap without materialising it.
        let json = report.json.rendered()
        #expect(json.count < 10_000, "\(json.count) bytes of JSON")
        #expect(report.svg.count < 100_000)
        #expect(report.text.contains("requests"))
    }

    @Test("a one-year gap costs what two records cost")
    func oneYearGap() throws {
        let lines = (0..<50).map { Self.jsonl(String(1_700_000_000 + $0)) } + (0..<50).map { Self.jsonl(String(1_731_536_000 + $0)) }
        let (run, _, report) = try Self.replayText(lines.joined(separator: "\n"), format: .jsonl)
        #expect(run.requests == 100)
        #expect(run.recordedLoad.heldWindows == 100)
        #expect(run.load.heldWindows <= run.attempts)
        #expect(report.json.rendered().count < 100_000)
    }

    @Test("nginx: an upstream response time of 292 years is a located warning and the line is skipped")
    func nginxHugeUpstreamTime() throws {
        let log = """
            10.0.0.1 - alice [17/Nov/2026:14:03:08 +0100] "POST /v1/orders HTTP/1.1" 503 0 "-" "curl/8.0" rt=0.250 urt="9223372029.0, 0.063" us="502, 503"
            10.0.0.1 - - [17/Nov/2026:14:03:09 +0100] "GET /v1/items HTTP/1.1" 200 512 "-" "curl/8.0"
            10.0.0.1 - - [17/Nov/2026:14:03:10 +0100] "GET /v1/items HTTP/1.1" 200 512 "-" "curl/8.0" rt=9223372029.0
            10.0.0.1 - - [17/Nov/2026:14:03:11 +0100] "GET /v1/items HTTP/1.1" 200 512 "-" "curl/8.0" rt=9223372029.0 urt="0.010" us="200"
            """
        let (run, stream, _) = try Self.replayText(log, format: .nginx)
        #expect(run.requests == 1)
        #expect(stream.warnings.map(\.location.line) == [1, 3, 4])
        #expect(stream.warnings.allSatisfy { $0.message.contains("skipped") })
        #expect(stream.warnings.first?.message.contains("duration") == true)
        #expect(stream.warnings.last?.message.contains("$request_time") == true)
    }

    static let envoyPrefix = #"[2026-11-17T14:03:07.120Z] "GET /v1/search HTTP/1.1" 200 - 0 512 "#
    static let envoyOK = #"[2026-11-17T14:03:06.000Z] "GET /v1/search HTTP/1.1" 200 - 0 512 12 10 "-" "curl/8" "id-0" "api" "10.0.0.2:80""#

    @Test("Envoy: a %DURATION% of Int64.max or near Int64.min is a warning at its column", arguments: [
        "9223372036854775807", "-9223372036854775807", "-9223372036854775808", "86400001", "-1",
    ])
    func envoyDuration(value: String) throws {
        let line = Self.envoyPrefix + value + #" 10 "-" "curl/8" "id-1" "api" "10.0.0.2:80""#
        let (run, stream, _) = try Self.replayText(Self.envoyOK + "\n" + line + "\n", format: .envoy)
        #expect(run.requests == 1)
        #expect(stream.warnings.map(\.location) == [SourceLocation(file: "rec", line: 2, column: Self.envoyPrefix.utf8.count + 1)])
        #expect(stream.warnings.first?.message.contains("%DURATION%") == true)
    }

    @Test("Envoy: an attempt count of Int.max or a billion after another line is a warning; 100 is read", arguments: [
        ("9223372036854775807", false), ("1000000000", false), ("99999999999999999999999", false), ("101", false), ("100", true),
    ])
    func envoyAttemptCount(count: String, read: Bool) throws {
        let line = Self.envoyPrefix + #"30 - "-" "curl/8" "id-2" "api" "10.0.0.2:80" "# + count
        let (run, stream, _) = try Self.replayText(Self.envoyOK + "\n" + line + "\n", format: .envoy)
        #expect(run.requests == (read ? 2 : 1))
        #expect(run.recordedAttempts == (read ? 101 : 1))
        #expect(stream.warnings.map(\.location) == (read ? [] : [SourceLocation(file: "rec", line: 2, column: line.utf8.count - count.utf8.count + 1)]))
    }

    @Test("a record of more than 100 upstream attempts is skipped with a warning, whatever the reader")
    func tooManyAttempts() throws {
        let statuses = Array(repeating: "502", count: 101).joined(separator: ", ")
        let log = #"10.0.0.1 - - [17/Nov/2026:14:03:08 +0100] "GET / HTTP/1.1" 502 0 "-" "curl/8.0" us="\#(statuses)""#
        let (records, stream) = try readRecords(log, format: .nginx)
        #expect(records.isEmpty)
        #expect(stream.warnings.first?.message.contains("at most 100 upstream attempts") == true)
    }

    @Test("the model's bucket of a time near Int64.min does not overflow")
    func bucketNearMinimum() {
        let model = TrafficModel(origin: Timestamp(nanosecondsSince1970: 0), bucketWidth: .seconds(1), seed: 1)
        #expect(model.bucket(of: .nanoseconds(Int64.min)) == Int64.min / 1_000_000_000 - 1)
        #expect(model.bucket(of: .nanoseconds(-1)) == -1)
        #expect(model.bucket(of: .nanoseconds(-1_000_000_000)) == -1)
        #expect(model.bucket(of: .nanoseconds(Int64.max)) == Int64.max / 1_000_000_000)
        #expect(model.bucketEnd(of: .nanoseconds(Int64.max)) == .nanoseconds(Int64.max))
        let narrow = TrafficModel(origin: Timestamp(nanosecondsSince1970: 0), bucketWidth: .nanoseconds(1), seed: 1)
        #expect(narrow.bucketEnd(of: .nanoseconds(Int64.max)) == .nanoseconds(Int64.max))
    }

    /// A HAR parser fed `bytes` in chunks of `chunk`, the most it held
    /// at once, and what it emitted.
    static func feedHAR(_ bytes: [UInt8], chunk: Int) -> (records: Int, warnings: [Diagnostic], maxDepth: Int, maxBytes: Int) {
        var parser = HARParser(path: "a.har", keptHeaders: ["retry-after"])
        var records = 0
        var warnings: [Diagnostic] = []
        var maxDepth = 0
        var maxBytes = 0
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + chunk)
            parser.consume(bytes[offset..<end]) { result in
                switch result {
                case .success(let record?): _ = record; records += 1
                case .success(nil): break
                case .failure(let warning): warnings.append(warning)
                }
            }
            maxDepth = max(maxDepth, parser.held.depth)
            maxBytes = max(maxBytes, parser.held.bytes)
            offset = end
        }
        if let problem = parser.finish() { warnings.append(problem) }
        return (records, warnings, maxDepth, maxBytes)
    }

    static let harEntry = #"{"startedDateTime": "2026-11-17T13:03:08Z", "time": 10, "request": {"method": "GET", "url": "/ok"}, "response": {"status": 200}}"#

    @Test("HAR: 4 MB of '[' is one warning, holding at most 64 levels")
    func harDeepNesting() {
        let bytes = Array(#"{"log": {"entries": [{"x": "#.utf8) + Array(repeating: UInt8(ascii: "["), count: 4_000_000)
        let fed = Self.feedHAR(bytes, chunk: 1 << 20)
        #expect(fed.records == 0)
        #expect(fed.warnings.count == 1)
        #expect(fed.warnings.first?.message.contains("at most 64 levels") == true)
        #expect(fed.maxDepth <= HARParser.maximumDepth)
        #expect(fed.maxBytes <= 1_000)
    }

    @Test("HAR: an entry with a 5 MB body is read without holding the body; a 3 MB entry of small parts is skipped")
    func harHugeEntries() {
        let body = String(repeating: "A", count: 5_000_000)
        let withBody = #"{"startedDateTime": "2026-11-17T13:03:08Z", "time": 10, "request": {"method": "GET", "url": "/big"}, "response": {"status": 503, "content": {"text": "\#(body)"}}}"#
        let parts = (0..<300_000).map { _ in "1" }.joined(separator: ",")
        let huge = #"{"startedDateTime": "2026-11-17T13:03:09Z", "request": {"method": "GET", "url": "/"}, "x": [\#(parts), \#(parts), \#(parts), \#(parts)], "response": {"status": 200}}"#
        let archive = #"{"log": {"entries": [\#(withBody),"# + "\n" + huge + ",\n" + Self.harEntry + "]}}"
        for chunk in [1 << 20, 4096] {
            let fed = Self.feedHAR(Array(archive.utf8), chunk: chunk)
            #expect(fed.records == 2, "the entry with a body and the one after the huge one")
            #expect(fed.warnings.map(\.location.line) == [2])
            #expect(fed.warnings.first?.message.contains("it is skipped") == true)
            #expect(fed.maxBytes <= HARParser.maximumEntryLength + 1)
        }
    }

    @Test("a line over 1 MiB is counted once and reported once; later lines keep their numbers", arguments: [4096, 1 << 20, 8 << 20])
    func longLine(chunk: Int) throws {
        let long = String(repeating: "x", count: 3 * (1 << 20))
        let text = [Self.jsonl("1763388000"), long, "not json", Self.jsonl("1763388001"), "also not json"].joined(separator: "\n")
        let (records, stream) = try readRecords(text, format: .jsonl, chunk: chunk)
        #expect(records.map(\.location.line) == [1, 4])
        #expect(stream.warnings.map(\.location.line) == [2, 3, 5])
        #expect(stream.warnings.first?.message.contains("longer") == true)
    }

    @Test("a warning prints no raw control character and forges no workflow command")
    func warningsEscaped() throws {
        let diagnostic = Diagnostic(
            severity: .warning,
            location: SourceLocation(file: "::error file=x::\u{1B}[31mrec\r\nfake", line: 1, column: 1),
            message: "expected \u{1B}]0;title\u{07} ##[error]x", suggestion: "\n::warning ::y\u{202E}")
        let text = diagnostic.indentedDescription
        #expect(!text.unicodeScalars.contains { $0 != "\n" && DisplayText.isUnsafe($0) })
        #expect(text.split(separator: "\n").count == 2)
        #expect(!text.split(separator: "\n").contains { $0.drop { $0 == " " }.hasPrefix("::") })
        #expect(!text.contains("##["))
        let error = ReplayInputError(location: SourceLocation(file: "\u{1B}[2J", line: 1, column: 1), message: "m")
        #expect(!error.description.unicodeScalars.contains { DisplayText.isUnsafe($0) })
    }

    @Test("the human and Markdown reports escape the policies' names")
    func reportEscaped() throws {
        var policy = TestPolicies.tmdb()
        policy.name = "::error ::x\u{1B}[31m|\u{301}|\nname"
        let run = ReplayRun(policy: policy, window: .seconds(1))
        let report = ReplayReport(run: run, baseline: run, inputs: [], seed: 1)
        for text in [report.text, report.markdown] {
            #expect(!text.unicodeScalars.contains { $0 != "\n" && DisplayText.isUnsafe($0) })
            #expect(!text.split(separator: "\n").contains { $0.hasPrefix("::") })
        }
        // Every Markdown table row keeps its four cells: no name adds one.
        let rows = report.markdown.split(separator: "\n").filter { $0.hasPrefix("|") }
        #expect(!rows.isEmpty)
        // A cell delimiter is a `|` without a backslash before it.
        func delimiters(_ row: Substring) -> Int {
            var count = 0
            var previous: Unicode.Scalar = " "
            for scalar in row.unicodeScalars {
                if scalar == "|" && previous != "\\" { count += 1 }
                previous = scalar
            }
            return count
        }
        #expect(rows.allSatisfy { delimiters($0) == 5 }, "\(rows)")
    }

    @Test("replay holds at most one load window per attempt, whatever the times")
    func windowsFollowRecords() async {
        await propertyCheck(count: 60, input: Gen.int(in: 0...9_223_372_029).array(of: 1...12)) { seconds in
            let text = seconds.sorted().map { Self.jsonl(String($0)) }.joined(separator: "\n")
            let (run, _, report) = try! Self.replayText(text, format: .jsonl, window: .milliseconds(1))
            #expect(run.requests == seconds.count)
            #expect(run.recordedLoad.heldWindows <= run.recordedAttempts)
            #expect(run.recordedLoad.total == run.recordedAttempts)
            #expect(run.load.heldWindows <= run.attempts)
            #expect(run.load.total == run.attempts)
            #expect(report.json.rendered().count < 4_000 + 200 * run.attempts)
        }
    }
}
