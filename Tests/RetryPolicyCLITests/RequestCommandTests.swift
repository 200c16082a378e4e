import Foundation
import Testing

/// A real HTTP server on 127.0.0.1, started by the test (Python's
/// http.server): `/ok` answers 200, `/flaky` answers 503 with
/// `Retry-After: 0` twice and then 200, `/down` always 503, anything else 404.
final class LoopbackServer {
    let process = Process()
    let port: Int

    init() throws {
        // The test runner ignores SIGTERM and children inherit that, so the
        // server restores the default and also stops itself after two
        // minutes: it can never outlive the test run.
        let script = """
            import http.server, os, signal, threading
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            threading.Timer(120, lambda: os._exit(0)).start()
            counts = {}
            class Handler(http.server.BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    n = counts.get(self.path, 0) + 1
                    counts[self.path] = n
                    if self.path == "/ok": self.reply(200, b"hello\\n")
                    elif self.path == "/flaky":
                        if n <= 2: self.reply(503, b"busy\\n", {"Retry-After": "0"})
                        else: self.reply(200, b"recovered\\n")
                    elif self.path == "/down": self.reply(503, b"down\\n")
                    else: self.reply(404, b"no\\n")
                def reply(self, status, body, headers={}):
                    self.send_response(status)
                    for name, value in headers.items(): self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var line = Data()
        while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

@Suite("retry-policy request", .serialized)
struct RequestCommandTests {
    static let policy = CLI.packageRoot.appendingPathComponent("policies/tmdb.yaml").path

    @Test("a success prints the body and exits 0")
    func success() throws {
        let server = try LoopbackServer()
        let result = try CLI.run(["request", server.url("/ok"), "--policy", Self.policy])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "hello\n")
    }

    @Test("503s with Retry-After are retried by the policy; --verbose shows the timeline")
    func retries() throws {
        let server = try LoopbackServer()
        let result = try CLI.run(["request", server.url("/flaky"), "--policy", Self.policy, "--verbose", "--seed", "1"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "recovered\n")
        #expect(result.stderr.contains("attempt 1: HTTP 503"), "\(result)")
        #expect(result.stderr.contains("retry after 0s (server-directed)"))
        #expect(result.stderr.contains("attempt 3: HTTP 200"))
        #expect(result.stderr.hasSuffix("< HTTP 200\n"))
    }

    @Test("a failure exits with the code of its error kind: 18 not_found, 13 status_5xx")
    func failures() throws {
        let server = try LoopbackServer()
        let missing = try CLI.run(["request", server.url("/missing"), "--policy", Self.policy])
        #expect(missing.status == 18, "\(missing)")
        #expect(missing.stderr == "error: not_found: HTTP 404 (not_retryable after 1 attempt)\n")
        let workspace = try Workspace([
            "quick.yaml": PolicyTexts.clean.replacingOccurrences(of: "initial: 1s\n  max: 10s", with: "initial: 1ms\n  max: 2ms")
        ])
        let down = try workspace.run(["request", server.url("/down"), "--policy", "quick.yaml"])
        #expect(down.status == 13, "\(down)")
        #expect(down.stderr.contains("(attempts_exhausted after 3 attempts)"), "\(down)")
    }

    @Test("usage errors and unloadable policies exit 2")
    func usage() throws {
        let missingPolicy = try CLI.run(["request", "http://127.0.0.1:1/", "--policy", "/nonexistent/p.yaml"])
        #expect(missingPolicy.status == 2)
        let badURL = try CLI.run(["request", "ftp://example.com/", "--policy", Self.policy])
        #expect(badURL.status == 2)
        #expect(badURL.stderr.contains("the URL must start with http:// or https://"))
        let badHeader = try CLI.run(["request", "http://127.0.0.1:1/", "--policy", Self.policy, "-H", "no colon"])
        #expect(badHeader.status == 2)
        let workspace = try Workspace(["broken.yaml": "version: 1\nname: x\nattempts: zero\n"])
        let broken = try workspace.run(["request", "http://127.0.0.1:1/", "--policy", "broken.yaml"])
        #expect(broken.status == 2, "\(broken)")
        #expect(broken.stderr.contains("broken.yaml:3:11: error:"), "\(broken)")
    }
}
