import ChildProcessSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real tools the replay tests record traffic with: an upstream that
/// fails on a schedule (a Python child), nginx in front of it, mitmproxy's
/// mitmdump writing a HAR, and a client that sends requests through them.
enum RecordingTools {
    /// Where an executable is, on PATH or in the usual sbin directories
    /// (Debian installs nginx in /usr/sbin).
    static func locate(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var nginx: String? { locate("nginx") }
    static var mitmdump: String? { locate("mitmdump") }
    static var python3: String? { locate("python3") }

    /// Why the nginx test cannot run here, or `nil`.
    static var nginxUnavailable: String? {
        if python3 == nil { return "python3 is not installed (it runs the test's upstream); scripts/test installs it" }
        if nginx == nil { return "nginx is not installed; scripts/test installs it (apt-get install nginx)" }
        return nil
    }

    /// Why the mitmproxy test cannot run here, or `nil`.
    static var mitmdumpUnavailable: String? {
        if python3 == nil { return "python3 is not installed (it runs the test's upstream); scripts/test installs it" }
        if mitmdump == nil { return "mitmdump is not installed; scripts/test installs it (pip install mitmproxy)" }
        return nil
    }

    /// A port nothing listens on now: bound to port 0, read, released.
    /// Taken immediately before the child that binds it starts, which
    /// retries with another on a bind failure.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ToolFailure("socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw ToolFailure("bind() failed: errno \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw ToolFailure("getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on the port.
    static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Waits until `process` accepts connections on `port`; `false` when
    /// it exits first or takes longer than `limit` (real time: a child
    /// process starting up).
    static func waitUntilListening(_ process: Process, port: Int, limit: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if !process.isRunning { return false }
            if accepts(port) { return true }
            usleep(50_000)
        }
        return false
    }

    /// Sends `signal`, and SIGKILL if the process is still running after
    /// `grace` seconds (a child may inherit an ignored SIGTERM from the
    /// test runner), then waits for its exit.
    static func stop(_ process: Process, signal: Int32 = SIGTERM, grace: Double = 20) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        _ = process.waitForExit()
    }

    /// An HTTP server on `count` ports of its own choosing, in one Python
    /// process: `/fail-twice` answers 502 twice then 200, counting across
    /// all ports; `/outage` answers 503 with `Retry-After: 1`; anything
    /// else 200. Every answer sets a cookie and carries a body marked
    /// SECRET; `/__count` (not counted) tells how many requests it served.
    final class FlakyUpstream {
        let process = Process()
        private(set) var ports: [Int] = []

        init(ports count: Int) throws {
            process.executableURL = URL(fileURLWithPath: RecordingTools.python3!)
            process.arguments = ["-c", FlakyUpstream.script, String(count)]
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = Pipe()
            process.standardError = FileHandle.standardError
            try process.run()
            var line = Data()
            while !line.contains(10) {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { throw ToolFailure("the upstream exited before it reported its ports") }
                line.append(data)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard text.hasPrefix("PORTS ") else { throw ToolFailure("the upstream said \(text)") }
            ports = text.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        }

        /// Requests served so far.
        func served() throws -> Int {
            let (status, output) = try RecordingTools.run(RecordingTools.python3!, [
                "-c", "import urllib.request,sys; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())",
                "http://127.0.0.1:\(ports[0])/__count",
            ])
            guard status == 0, let count = Int(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw ToolFailure("cannot ask the upstream its count: \(output)")
            }
            return count
        }

        // It has nothing to save: killed at once.
        deinit { RecordingTools.stop(process, signal: SIGKILL) }

        static let script = #"""
            import http.server, sys, threading
            lock = threading.Lock()
            state = {"count": 0, "fail_twice": 0}
            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def log_message(self, *args):
                    pass
                def reply(self, code, headers=()):
                    body = b'{"token": "SECRET-RESPONSE-BODY"}'
                    self.send_response(code)
                    for name, value in headers:
                        self.send_header(name, value)
                    self.send_header("Set-Cookie", "session=SECRET-SET-COOKIE")
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def handle_any(self):
                    length = int(self.headers.get("Content-Length") or 0)
                    if length:
                        self.rfile.read(length)
                    if self.path == "/__count":
                        with lock:
                            body = str(state["count"]).encode()
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                        return
                    with lock:
                        state["count"] += 1
                        if self.path.startswith("/fail-twice"):
                            state["fail_twice"] += 1
                            turn = state["fail_twice"]
                    if self.path.startswith("/fail-twice"):
                        self.reply(200 if turn % 3 == 0 else 502)
                    elif self.path.startswith("/outage"):
                        self.reply(503, [("Retry-After", "1")])
                    else:
                        self.reply(200)
                do_GET = handle_any
                do_POST = handle_any
            servers = []
            for _ in range(int(sys.argv[1])):
                server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
                servers.append(server)
                threading.Thread(target=server.serve_forever, daemon=True).start()
            print("PORTS " + " ".join(str(s.server_address[1]) for s in servers), flush=True)
            sys.stdin.read()
            """#
    }

    /// Sends requests one after another, each with an Authorization
    /// header, a cookie and a query token marked SECRET (and a body for a
    /// POST); `plan` is `METHOD /path count` triples. Returns the statuses
    /// the client saw.
    static func sendRequests(to base: String, plan: [(String, String, Int)]) throws -> [Int] {
        let script = #"""
            import sys, urllib.request, urllib.error
            base = sys.argv[1]
            for item in sys.argv[2:]:
                method, path, count = item.split(" ")
                for i in range(int(count)):
                    request = urllib.request.Request(
                        base + path + "?i=%d&token=SECRET-QUERY" % i, method=method,
                        data=(b"SECRET-REQUEST-BODY" if method == "POST" else None),
                        headers={"Authorization": "Bearer SECRET-TOKEN", "Cookie": "session=SECRET-COOKIE"})
                    try:
                        with urllib.request.urlopen(request, timeout=20) as response:
                            response.read()
                            print(response.status)
                    except urllib.error.HTTPError as error:
                        error.read()
                        print(error.code)
            """#
        let (status, output) = try run(python3!, ["-c", script, base] + plan.map { "\($0.0) \($0.1) \($0.2)" })
        guard status == 0 else { throw ToolFailure("the client failed: \(output)") }
        return output.split(separator: "\n").compactMap { Int($0) }
    }

    /// Runs a program to its end; its standard output and error together.
    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        let status = process.waitForExit()
        return (status, String(decoding: data, as: UTF8.self))
    }

    /// A Python launcher that runs `argv[1:]` with SIGINT and SIGTERM
    /// unblocked and at their default action.
    static let withDefaultSignals = """
        import os, signal, sys
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.execv(sys.argv[1], sys.argv[1:])
        """

    /// The strings the recordings hold that replay must never echo.
    static let secrets = [
        "SECRET-TOKEN", "SECRET-COOKIE", "SECRET-QUERY", "SECRET-REQUEST-BODY", "SECRET-RESPONSE-BODY", "SECRET-SET-COOKIE",
    ]
}

struct ToolFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
