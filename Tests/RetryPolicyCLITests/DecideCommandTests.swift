import Foundation
import Testing

@Suite("retry-policy decide", .serialized)
struct DecideCommandTests {
    @Test("json has exactly the documented shape and cites the deciding rule as FILE:LINE")
    func json() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["decide", "clean.yaml", "--status", "503", "--format", "json"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == """
            {
              "action": "retry",
              "error": "status_5xx",
              "reason": null,
              "delay_ms": {
                "min": 0,
                "max": 1000
              },
              "rule": "clean.yaml:23"
            }

            """, "\(result)")
    }

    @Test("a server delay gives equal bounds; the last attempt stops with attempts_exhausted")
    func retryAfterAndExhaustion() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let server = try workspace.run(["decide", "clean.yaml", "--status", "429", "--retry-after", "2", "--format", "json"])
        #expect(server.stdout.contains("\"delay_ms\": {\n    \"min\": 2000,\n    \"max\": 2000\n  }"), "\(server)")
        let last = try workspace.run(["decide", "clean.yaml", "--status", "503", "--attempt", "3", "--format", "json"])
        #expect(last.stdout.contains("\"action\": \"stop\",\n  \"error\": \"status_5xx\",\n  \"reason\": \"attempts_exhausted\",\n  \"delay_ms\": null,\n  \"rule\": \"clean.yaml:23\""), "\(last)")
    }

    @Test("the default rule and the implicit 2xx success report their rule (or null)")
    func defaultsAndSuccess() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let success = try workspace.run(["decide", "clean.yaml", "--status", "200", "--format", "json"])
        #expect(success.stdout == "{\n  \"action\": \"success\",\n  \"error\": null,\n  \"reason\": null,\n  \"delay_ms\": null,\n  \"rule\": null\n}\n", "\(success)")
        let dns = try workspace.run(["decide", "clean.yaml", "--transport", "dns", "--format", "json"])
        #expect(dns.stdout.contains("\"reason\": \"not_retryable\""))
        #expect(dns.stdout.contains("\"rule\": \"clean.yaml:33\""), "\(dns)")
    }

    @Test("the human form is a sentence that cites the rule")
    func human() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let retry = try workspace.run(["decide", "clean.yaml", "--status", "503"])
        #expect(retry.stdout == "Retry after 0s-1s (full jitter): HTTP 503 matches the rule at clean.yaml:23, which retries it as status_5xx; this was attempt 1 of 3.\n", "\(retry)")
        let deadline = try workspace.run(["decide", "clean.yaml", "--transport", "timeout", "--elapsed", "29.5s"])
        #expect(deadline.stdout == "Stop with timeout (deadline_exceeded): transport failure timeout matches the rule at clean.yaml:26, which retries it, but the next attempt could not start before the total deadline 30s (elapsed 29.5s).\n", "\(deadline)")
        let post = try workspace.run(["decide", "clean.yaml", "--status", "502", "--method", "POST"])
        #expect(post.stdout.hasPrefix("Stop with status_5xx (not_idempotent): HTTP 502 matches the rule at clean.yaml:23, which retries it, but POST is not idempotent"), "\(post)")
        let keyed = try workspace.run(["decide", "clean.yaml", "--status", "502", "--method", "POST", "--idempotent"])
        #expect(keyed.stdout.hasPrefix("Retry after 0s-1s"), "\(keyed)")
    }

    @Test("bad arguments exit 2 with a clear message")
    func usage() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let neither = try workspace.run(["decide", "clean.yaml"])
        #expect(neither.status == 2)
        #expect(neither.stderr.contains("give exactly one of --status or --transport"))
        let badTransport = try workspace.run(["decide", "clean.yaml", "--transport", "wifi"])
        #expect(badTransport.status == 2)
        #expect(badTransport.stderr.contains("--transport must be one of timeout, connection_lost"))
        let badStatus = try workspace.run(["decide", "clean.yaml", "--status", "99"])
        #expect(badStatus.status == 2)
        let missing = try workspace.run(["decide", "missing.yaml", "--status", "500"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "error: missing.yaml: no such file\n")
    }

    @Test("--now accepts Unix seconds, ISO 8601 UTC and an IMF-fixdate, and makes HTTP-date answers reproducible", arguments: [
        "1795435200", "2026-11-23T12:00:00Z", "Mon, 23 Nov 2026 12:00:00 GMT",
    ])
    func now(instant: String) throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run([
            "decide", "clean.yaml", "--status", "429", "--retry-after", "Mon, 23 Nov 2026 12:00:20 GMT", "--now", instant,
            "--format", "json",
        ])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\"delay_ms\": {\n    \"min\": 20000,\n    \"max\": 20000\n  }"), "\(result)")
        let human = try workspace.run([
            "decide", "clean.yaml", "--status", "429", "--retry-after", "Mon, 23 Nov 2026 12:00:20 GMT", "--now", instant,
        ])
        #expect(human.stdout == "Retry after 20s, as the server asked: HTTP 429 matches the rule at clean.yaml:17, which retries it as status_429; this was attempt 1 of 3.\n", "\(human)")
    }

    @Test("--now resolves an RFC 850 two-digit year by the 50-year rule")
    func nowResolvesShortYears() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        // Exactly 50 years ahead is 2076: far above the 60 s cap.
        let future = try workspace.run([
            "decide", "clean.yaml", "--status", "429", "--retry-after", "Monday, 23-Nov-76 12:00:00 GMT",
            "--now", "2026-11-23T12:00:00Z", "--format", "json",
        ])
        #expect(future.stdout.contains("\"reason\": \"retry_after_too_long\""), "\(future)")
        // One second later it would be more than 50 years ahead: 1976, in the past.
        let past = try workspace.run([
            "decide", "clean.yaml", "--status", "429", "--retry-after", "Monday, 23-Nov-76 12:00:01 GMT",
            "--now", "2026-11-23T12:00:00Z", "--format", "json",
        ])
        #expect(past.stdout.contains("\"delay_ms\": {\n    \"min\": 0,\n    \"max\": 0\n  }"), "\(past)")
    }

    @Test("an overflowing Retry-After meets the cap: stop, with a sentence that says so")
    func overflowingRetryAfter() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let json = try workspace.run(["decide", "clean.yaml", "--status", "429", "--retry-after", "99999999999999999999", "--format", "json"])
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains("\"action\": \"stop\",\n  \"error\": \"status_429\",\n  \"reason\": \"retry_after_too_long\""), "\(json)")
        let human = try workspace.run(["decide", "clean.yaml", "--status", "429", "--retry-after", "99999999999999999999"])
        #expect(human.stdout == "Stop with status_429 (retry_after_too_long): HTTP 429 matches the rule at clean.yaml:17, which retries it, but the server asked for a delay too large to represent (292 years or more), above the cap 1m.\n", "\(human)")
        let clamp = try Workspace(["clamp.yaml": PolicyTexts.clean.replacingOccurrences(of: "cap: 60s", with: "cap: 20s\n  above_cap: clamp")])
        let clamped = try clamp.run(["decide", "clamp.yaml", "--status", "429", "--retry-after", "99999999999999999999", "--format", "json"])
        #expect(clamped.stdout.contains("\"delay_ms\": {\n    \"min\": 20000,\n    \"max\": 20000\n  }"), "\(clamped)")
    }

    @Test("a bad --now exits 2 and says which spellings it takes", arguments: [
        "tomorrow", "2026-11-23 12:00:00", "2026-11-23T12:00:00+00:00", "2026-11-23T12:00:00.5Z", "2026-11-23t12:00:00z",
        "2026-02-30T00:00:00Z", "2026-11-23T24:00:00Z", "Mon, 23 Nov 2026 12:00:00 UTC", "Monday, 23-Nov-26 12:00:00 GMT",
        "Mon Nov 23 12:00:00 2026", "+1795435200", "1795435200.5", " 1795435200",
    ])
    func badNow(instant: String) throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["decide", "clean.yaml", "--status", "429", "--now=\(instant)"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--now: expected Unix seconds (1795435200), ISO 8601 UTC (2026-11-23T12:00:00Z) or an IMF-fixdate (Mon, 23 Nov 2026 12:00:00 GMT), found '\(instant)'"), "\(result)")
    }

    @Test("a --now outside the timestamp range exits 2", arguments: ["99999999999", "9223372037", "9999-01-01T00:00:00Z", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func nowOutOfRange(instant: String) throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["decide", "clean.yaml", "--status", "429", "--now", instant])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("--now: '\(instant)' is outside the range of a timestamp (1677-09-21 to 2262-04-11)"), "\(result)")
    }

    @Test("a policy that does not load is reported with its position and exits 1")
    func brokenPolicy() throws {
        let workspace = try Workspace(["broken.yaml": PolicyTexts.clean.replacingOccurrences(of: "attempts: 3", with: "attempts: three")])
        let result = try workspace.run(["decide", "broken.yaml", "--status", "500"])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("broken.yaml:3:11: error:"), "\(result)")
    }
}

@Suite("retry-policy simulate", .serialized)
struct SimulateCommandTests {
    @Test("a timeline shows each attempt's start, response, decision and the result; the same seed gives the same run")
    func timeline() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean.replacingOccurrences(of: "attempts: 3", with: "attempts: 4")])
        let arguments = ["simulate", "clean.yaml", "--responses", "503,429; Retry-After: 2,200", "--seed", "42"]
        let first = try workspace.run(arguments)
        let second = try workspace.run(arguments)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == second.stdout)
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "clean (clean.yaml), seed 42")
        #expect(lines[1].hasPrefix("time "))
        #expect(lines[2].hasPrefix("t=0s "))
        #expect(lines[2].contains("  503  "))
        #expect(lines[2].contains("(drawn from 0s-1s) [status_5xx]"))
        #expect(lines[3].contains("429; Retry-After: 2") && lines[3].contains("retry in 2s (server-directed) [status_429]"), "\(first)")
        #expect(lines[4].contains("  200  ") && lines[4].contains("success"))
        #expect(lines[5].hasPrefix("result: success after 3 attempts in "))
        let other = try workspace.run(["simulate", "clean.yaml", "--responses", "503,429; Retry-After: 2,200", "--seed", "43"])
        #expect(other.stdout != first.stdout, "a different seed draws a different jitter")
    }

    @Test("the earlier header form is refused with the curl form to write instead")
    func earlierHeaderForm() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let earlier = try workspace.run(["simulate", "clean.yaml", "--responses", "503,429:retry-after=2,200", "--seed", "42"])
        #expect(earlier.status == 2, "\(earlier)")
        #expect(earlier.stdout.isEmpty)
        #expect(earlier.stderr.contains("--responses: '429:retry-after=2' is not a response: the earlier header form is no longer read; write '429; retry-after: 2'"), "\(earlier)")
        let outage = try workspace.run(["simulate", "clean.yaml", "--clients", "10", "--outage-response", "503:retry-after=1"])
        #expect(outage.status == 2 && outage.stderr.contains("write '503; retry-after: 1'"), "\(outage)")
        let current = try workspace.run(["simulate", "clean.yaml", "--responses", "503,429; retry-after: 2,200", "--seed", "42"])
        #expect(current.status == 0 && current.stderr.isEmpty, "\(current)")
    }

    @Test("json timeline; the last response repeats until the policy stops")
    func json() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["simulate", "clean.yaml", "--responses", "500", "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let attempts = try #require(document["attempts"] as? [[String: Any]])
        #expect(attempts.count == 3)
        let resultObject = try #require(document["result"] as? [String: Any])
        #expect(resultObject["action"] as? String == "stop")
        #expect(resultObject["reason"] as? String == "attempts_exhausted")
        #expect(resultObject["attempts"] as? Int == 3)
    }

    @Test("a storm reports peak and total load; jitter lowers the peak; --svg draws it")
    func storm() throws {
        let workspace = try Workspace([
            "jitter.yaml": PolicyTexts.clean,
            "nojitter.yaml": PolicyTexts.clean.replacingOccurrences(of: "jitter: full", with: "jitter: none"),
        ])
        let jittered = try workspace.run(["simulate", "jitter.yaml", "--clients", "500", "--outage", "10s", "--format", "json", "--svg", "storm.svg"])
        let fixed = try workspace.run(["simulate", "nojitter.yaml", "--clients", "500", "--outage", "10s", "--format", "json"])
        #expect(jittered.status == 0, "\(jittered)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(jittered.stdout.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(fixed.stdout.utf8)) as? [String: Any])
        // Every client makes 3 attempts inside the 10 s outage either way.
        #expect(a["total_requests"] as? Int == 1500)
        #expect(b["total_requests"] as? Int == 1500)
        // Without jitter every retry lands in the same second: 500 at once, three times.
        #expect(b["peak_requests"] as? Int == 500)
        #expect((b["load"] as? [Int]) == [500, 500, 0, 500])
        // In 100 ms windows the first attempts coincide either way; the retries
        // of the unjittered policy come back together (at 1 s and 3 s), the
        // jittered ones spread out.
        let fine = try workspace.run(["simulate", "jitter.yaml", "--clients", "500", "--outage", "10s", "--window", "100ms", "--format", "json"])
        let fineFixed = try workspace.run(["simulate", "nojitter.yaml", "--clients", "500", "--outage", "10s", "--window", "100ms", "--format", "json"])
        let c = try #require(try JSONSerialization.jsonObject(with: Data(fine.stdout.utf8)) as? [String: Any])
        let d = try #require(try JSONSerialization.jsonObject(with: Data(fineFixed.stdout.utf8)) as? [String: Any])
        let jitteredRetries = try #require(c["load"] as? [Int]).dropFirst()
        let fixedLoad = try #require(d["load"] as? [Int])
        #expect(fixedLoad[10] == 500 && fixedLoad[30] == 500, "\(fixedLoad)")
        #expect(jitteredRetries.allSatisfy { $0 < 100 }, "jittered retries spread out: \(jitteredRetries)")
        let svg = try String(contentsOfFile: workspace.path("storm.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        let wellFormed = try python("import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1]); print('ok')", arguments: [workspace.path("storm.svg")])
        #expect(wellFormed.output == "ok\n")
        let human = try workspace.run(["simulate", "nojitter.yaml", "--clients", "500", "--outage", "10s"])
        #expect(human.stdout.contains("server load: 1500 requests in total, peak 500 per 1s at 0s (3 requests per client)\nlargest retry burst: 500 retries within 10ms\n"), "\(human)")
        let spread = try workspace.run(["simulate", "jitter.yaml", "--clients", "500", "--outage", "10s"])
        let burst = spread.stdout.split(separator: "\n").first { $0.hasPrefix("largest retry burst: ") }.map(String.init) ?? ""
        let count = Int(burst.dropFirst("largest retry burst: ".count).prefix { $0.isNumber }) ?? 500
        #expect(count < 50, "full jitter breaks the retry burst up: \(burst)")
        #expect(human.stdout.contains("clients: 0 succeeded, 500 failed (attempts_exhausted 500)"))
    }

    @Test("a malformed response list exits 2 with what was wrong")
    func badResponses() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let result = try workspace.run(["simulate", "clean.yaml", "--responses", "503,wat"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("'wat' is not a response: expected a status (100-599), 'condition NAME', 'grpc:STATUS' or one of timeout"), "\(result)")
    }

    @Test("--header takes curl's 'Name: value'; durations and methods are checked with a clear message")
    func sharedOptions() throws {
        let workspace = try Workspace(["clean.yaml": PolicyTexts.clean])
        let header = try workspace.run(["decide", "clean.yaml", "--status", "503", "--header", "Retry-After: 3", "--format", "json"])
        #expect(header.status == 0 && header.stdout.contains("\"min\": 3000"), "\(header)")
        let oldForm = try workspace.run(["decide", "clean.yaml", "--status", "503", "--header", "Retry-After=3"])
        #expect(oldForm.status == 2 && oldForm.stderr.contains("expected a header as curl writes it, 'Name: value', found 'Retry-After=3': no ':' after the name; write 'Retry-After: 3'"), "\(oldForm)")
        let spaced = try workspace.run(["decide", "clean.yaml", "--status", "503", "--header", "Retry After: 3"])
        #expect(spaced.status == 2 && spaced.stderr.contains("the name holds a space or tab at column 6"), "\(spaced)")
        let trimmed = try workspace.run(["decide", "clean.yaml", "--status", "503", "--header", "Retry-After:\t3 \t", "--format", "json"])
        #expect(trimmed.status == 0 && trimmed.stdout.contains("\"min\": 3000"), "\(trimmed)")
        let duration = try workspace.run(["decide", "clean.yaml", "--status", "503", "--elapsed", "5"])
        #expect(duration.status == 2 && duration.stderr.contains("expected a duration such as 250ms, 10s or 1m30s"), "\(duration)")
        let method = try workspace.run(["simulate", "clean.yaml", "--responses", "503,200", "--method", "FETCH"])
        #expect(method.status == 2 && method.stderr.contains("--method must be one of GET"), "\(method)")
    }

    @Test("simulate takes --endpoint: the endpoint's timeout override applies")
    func simulateEndpoint() throws {
        let policy = """
            version: 1
            name: e
            attempts: 3
            backoff: {initial: 1s, max: 1s, multiplier: 1, jitter: none}
            timeouts: {per_attempt: 10s, total: 30s}
            endpoints:
              fast: {total: 1500ms}
            rules:
              - {status: 503, error: status_5xx, action: retry}
            default: {error: internal_error, action: stop}

            """
        let workspace = try Workspace(["e.yaml": policy])
        let plain = try workspace.run(["simulate", "e.yaml", "--responses", "503", "--format", "json"])
        let fast = try workspace.run(["simulate", "e.yaml", "--responses", "503", "--endpoint", "fast", "--format", "json"])
        #expect(plain.status == 0 && fast.status == 0, "\(plain)\n\(fast)")
        #expect(plain.stdout.contains("attempts_exhausted"), "\(plain)")
        #expect(fast.stdout.contains("deadline_exceeded"), "\(fast)")
    }
}
