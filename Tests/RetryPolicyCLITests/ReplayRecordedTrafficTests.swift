import ChildProcessSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Traffic recorded by real tools, then replayed: nginx's access log in
/// front of an upstream that fails on a schedule, and a HAR written by
/// mitmproxy. What replay counts is checked against what the upstream saw.
@Suite("Replay of recorded traffic", .serialized)
struct ReplayRecordedTrafficTests {
    static let singleAttempt = """
        version: 1
        name: single
        attempts: 1
        rules:
          - {status: 5xx, error: status_5xx, action: retry}
        default: {error: network_error, action: stop}
        """

    /// nginx as a reverse proxy on loopback with `proxy_next_upstream`
    /// over three upstream servers, as the current user, everything in
    /// `directory`. Retries with a fresh port when the chosen one was
    /// taken in between.
    static func startNginx(in directory: URL, upstream: [Int]) throws -> (Process, Int) {
        for _ in 0..<5 {
            let port = try RecordingTools.freePort()
            let prefix = directory.path
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("temp"), withIntermediateDirectories: true)
            let servers = upstream.map { "server 127.0.0.1:\($0) max_fails=0;" }.joined(separator: " ")
            // As root, the workers would otherwise switch to `nobody`.
            let user = getuid() == 0 ? "user root;" : ""
            let configuration = """
                \(user)
                worker_processes 1;
                pid \(prefix)/nginx.pid;
                error_log \(prefix)/error.log;
                events { worker_connections 64; }
                http {
                    client_body_temp_path \(prefix)/temp/body;
                    proxy_temp_path \(prefix)/temp/proxy;
                    fastcgi_temp_path \(prefix)/temp/fastcgi;
                    uwsgi_temp_path \(prefix)/temp/uwsgi;
                    scgi_temp_path \(prefix)/temp/scgi;
                    log_format timed '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time urt="$upstream_response_time" us="$upstream_status"';
                    log_format secrets '$msec "$request" $status $upstream_status $request_time "$http_authorization" "$http_cookie" $sent_http_retry_after';
                    access_log \(prefix)/access.log timed;
                    access_log \(prefix)/secrets.log secrets;
                    upstream flaky { \(servers) }
                    server {
                        listen 127.0.0.1:\(port);
                        location / {
                            proxy_pass http://flaky;
                            proxy_next_upstream error timeout http_502 http_503 non_idempotent;
                            proxy_next_upstream_tries 3;
                        }
                    }
                }
                """
            try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: RecordingTools.nginx!)
            process.arguments = ["-p", prefix, "-c", "nginx.conf", "-e", "\(prefix)/error.log", "-g", "daemon off;"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if RecordingTools.waitUntilListening(process, port: port) { return (process, port) }
            RecordingTools.stop(process)
            let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            guard log.contains("Address already in use") else { throw ToolFailure("nginx did not start: \(log)") }
        }
        throw ToolFailure("nginx found no free port in five tries")
    }

    @Test(
        "nginx's access log: replay counts the upstream attempts nginx made, and one attempt per request under a single-attempt policy",
        .enabled(if: RecordingTools.nginxUnavailable == nil, "\(RecordingTools.nginxUnavailable ?? "")"))
    func nginx() throws {
        let upstream = try RecordingTools.FlakyUpstream(ports: 3)
        let workspace = try Workspace(["single.yaml": Self.singleAttempt])
        let directory = workspace.url.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (nginx, port) = try Self.startNginx(in: directory, upstream: upstream.ports)
        let statuses: [Int]
        do {
            statuses = try RecordingTools.sendRequests(
                to: "http://127.0.0.1:\(port)", plan: [("GET", "/fail-twice", 9), ("GET", "/outage", 4), ("POST", "/ok", 3)])
        } catch {
            RecordingTools.stop(nginx, signal: SIGQUIT)
            throw error
        }
        RecordingTools.stop(nginx, signal: SIGQUIT)
        let served = try upstream.served()
        // nginx moved on to the next server twice for each /fail-twice and
        // /outage request: 9 x 3 + 4 x 3 + 3.
        #expect(statuses == Array(repeating: 200, count: 9) + Array(repeating: 503, count: 4) + Array(repeating: 200, count: 3))
        #expect(served == 42)

        let access = directory.appendingPathComponent("access.log").path
        let log = try String(contentsOfFile: access, encoding: .utf8)
        #expect(log.contains("us=\"502, 502, 200\""), "\(log)")

        // The log in the extension of combined is recognised without help.
        let replayed = try workspace.run(["replay", "--policy", "single.yaml", access, "--report", "json"])
        #expect(replayed.status == 0, "\(replayed)")
        let report = try JSONSerialization.jsonObject(with: Data(replayed.stdout.utf8)) as! [String: Any]
        let recorded = report["recorded"] as! [String: Any]
        let policy = report["policy"] as! [String: Any]
        #expect(recorded["requests"] as? Int == 16)
        #expect(recorded["attempts"] as? Int == served)
        #expect((recorded["inputs"] as! [[String: Any]]).first?["format"] as? String == "nginx")
        #expect(policy["attempts"] as? Int == 16, "one attempt per recorded request")
        // Under one attempt, only the requests whose first upstream attempt
        // succeeded do: each /fail-twice met 502 first, so only the three /ok.
        #expect(policy["succeeded"] as? Int == 3)

        // A retrying policy sends more than one attempt per failing request.
        try workspace.write("tmdb.yaml", try String(contentsOf: CLI.packageRoot.appendingPathComponent("policies/tmdb.yaml"), encoding: .utf8))
        let retrying = try workspace.run(["replay", "--policy", "tmdb.yaml", "--baseline", "single.yaml", access])
        #expect(retrying.status == 0, "\(retrying)")
        #expect(retrying.stdout.contains("requests              16"), "\(retrying.stdout)")

        // The log with secrets in it, through the given log_format: nothing
        // but the fields replay uses comes out.
        let secrets = directory.appendingPathComponent("secrets.log").path
        let secretLog = try String(contentsOfFile: secrets, encoding: .utf8)
        #expect(secretLog.contains("SECRET-TOKEN") && secretLog.contains("SECRET-COOKIE"), "the test must hold secrets to prove anything")
        let format = #"$msec "$request" $status $upstream_status $request_time "$http_authorization" "$http_cookie" $sent_http_retry_after"#
        let svg = workspace.path("load.svg")
        for form in ["human", "json", "markdown"] {
            let result = try workspace.run([
                "replay", "--policy", "single.yaml", "--format", "nginx", "--nginx-log-format", format, secrets, "--report", form,
                "--svg", svg, "--force",
            ])
            #expect(result.status == 0, "\(result)")
            let chart = try String(contentsOfFile: svg, encoding: .utf8)
            for secret in RecordingTools.secrets {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret) && !chart.contains(secret), "\(secret) in \(form)")
            }
            if form == "json" {
                let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
                #expect((object["recorded"] as! [String: Any])["attempts"] as? Int == served)
            }
        }
    }

    /// mitmdump as a reverse proxy in front of the upstream, writing a HAR
    /// when it stops.
    static func startMitmdump(in directory: URL, upstream: Int, har: String) throws -> (Process, Int) {
        for _ in 0..<5 {
            let port = try RecordingTools.freePort()
            let process = Process()
            // The test runner's threads block or ignore SIGINT and SIGTERM,
            // and a child inherits that: mitmdump, which writes its HAR
            // when a signal stops it, starts with them restored.
            process.executableURL = URL(fileURLWithPath: RecordingTools.python3!)
            process.arguments = [
                "-c", RecordingTools.withDefaultSignals, RecordingTools.mitmdump!,
                "--mode", "reverse:http://127.0.0.1:\(upstream)", "--listen-host", "127.0.0.1", "--listen-port", String(port),
                "--set", "hardump=\(har)", "--set", "confdir=\(directory.path)/conf", "-q",
            ]
            let errors = directory.appendingPathComponent("mitmdump.log")
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            let log = try FileHandle(forWritingTo: errors)
            process.standardOutput = log
            process.standardError = log
            try process.run()
            if RecordingTools.waitUntilListening(process, port: port, limit: 60) { return (process, port) }
            RecordingTools.stop(process)
            let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            guard text.contains("in use") || text.contains("Errno 98") else { throw ToolFailure("mitmdump did not start: \(text)") }
        }
        throw ToolFailure("mitmdump found no free port in five tries")
    }

    @Test(
        "a HAR written by mitmproxy: every flow is a recorded request, and nothing but the fields replay uses is echoed",
        .enabled(if: RecordingTools.mitmdumpUnavailable == nil, "\(RecordingTools.mitmdumpUnavailable ?? "")"))
    func mitmproxyHAR() throws {
        let upstream = try RecordingTools.FlakyUpstream(ports: 1)
        let workspace = try Workspace(["single.yaml": Self.singleAttempt])
        let directory = workspace.url.appendingPathComponent("mitm")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let har = directory.appendingPathComponent("flows.har").path
        let (mitmdump, port) = try Self.startMitmdump(in: directory, upstream: upstream.ports[0], har: har)
        let statuses: [Int]
        do {
            statuses = try RecordingTools.sendRequests(
                to: "http://127.0.0.1:\(port)", plan: [("GET", "/fail-twice", 6), ("POST", "/outage", 3), ("GET", "/ok", 2)])
        } catch {
            RecordingTools.stop(mitmdump, signal: SIGINT)
            throw error
        }
        // mitmdump writes the HAR as it shuts down.
        RecordingTools.stop(mitmdump, signal: SIGINT)
        let served = try upstream.served()
        #expect(statuses == [502, 502, 200, 502, 502, 200, 503, 503, 503, 200, 200])
        #expect(served == 11)
        let archive = try String(contentsOfFile: har, encoding: .utf8)
        #expect(archive.contains("SECRET-TOKEN") && archive.contains("SECRET-SET-COOKIE"), "the test must hold secrets to prove anything")

        let svg = workspace.path("load.svg")
        for form in ["human", "json", "markdown"] {
            let result = try workspace.run(["replay", "--policy", "single.yaml", har, "--report", form, "--svg", svg, "--force"])
            #expect(result.status == 0, "\(result)")
            let chart = try String(contentsOfFile: svg, encoding: .utf8)
            for secret in RecordingTools.secrets {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret) && !chart.contains(secret), "\(secret) in \(form)")
            }
            if form == "json" {
                let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
                let recorded = object["recorded"] as! [String: Any]
                #expect(recorded["requests"] as? Int == served)
                #expect((recorded["inputs"] as! [[String: Any]]).first?["format"] as? String == "har")
                // 200s: two of /fail-twice and both /ok.
                #expect(recorded["success_rate"] as? Double == 36.3636)
                #expect((object["policy"] as! [String: Any])["attempts"] as? Int == served)
            }
        }
    }
}
