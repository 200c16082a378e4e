import Benchmark
import Foundation

/// A keystroke in a 1,000-line policy as an editor sends it to
/// `retry-policy lsp`: one incremental `didChange`, until the
/// `publishDiagnostics` that answers it, through the real binary's
/// standard input and output. The server runs with `--debounce 0`, so the
/// time is the check's, not the pause the server waits for in typing.
///
/// The binary is `RETRY_POLICY_BINARY`, else the package's
/// `.build/release/retry-policy` (`swift build -c release --product
/// retry-policy` at the package root), else `.build/debug/retry-policy`.
let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock], warmupIterations: 3, maxDuration: .seconds(10), maxIterations: 200,
        // The budget: diagnostics within 100 ms of a keystroke.
        thresholds: [.wallClock: .init(absolute: [.p90: 100_000_000])])
    guard let binary = KeystrokeSession.binary() else {
        print("note: lsp.keystroke-1000-lines is skipped: no retry-policy binary (build it: swift build -c release --product retry-policy)")
        return
    }
    Benchmark("lsp.keystroke-1000-lines", configuration: configuration) { benchmark in
        let session = try KeystrokeSession(binary: binary)
        defer { session.close() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { blackHole(try session.keystroke()) }
        benchmark.stopMeasurement()
    }
}

/// One server, one open 1,000-line policy, and the keystrokes typed into it.
final class KeystrokeSession {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func binary() -> URL? {
        if let explicit = ProcessInfo.processInfo.environment["RETRY_POLICY_BINARY"] { return URL(fileURLWithPath: explicit) }
        return [".build/release/retry-policy", ".build/debug/retry-policy"].map { packageRoot.appendingPathComponent($0) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// 1,000 lines: settings, 200 endpoints, then rules (each status once).
    static func policy() -> String {
        var lines = ["version: 1", "name: big", "attempts: 3", "backoff:", "  initial: 100ms", "  max: 2s", "  jitter: full", "endpoints:"]
        var endpoint = 0
        while lines.count < 600 {
            lines += ["  /v1/items\(endpoint):", "    per_attempt: 2s", "    total: 10s"]
            endpoint += 1
        }
        lines.append("rules:")
        var status = 400
        while lines.count < 1000 {
            lines += ["  - status: \(status)", "    error: status_5xx", "    action: stop"]
            status = status == 599 ? 400 : status + 1
        }
        return lines.prefix(1000).joined(separator: "\n") + "\n"
    }

    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let directory: URL
    let uri: String
    var version = 1
    var buffer: [UInt8] = []

    init(binary: URL) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lsp-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("big.yaml")
        let text = Self.policy()
        try text.write(to: file, atomically: true, encoding: .utf8)
        uri = file.absoluteString
        process.executableURL = binary
        process.arguments = ["lsp", "--root", directory.path, "--debounce", "0"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        send(["jsonrpc": "2.0", "id": 1, "method": "initialize", "params": ["capabilities": [String: Any]()]])
        _ = try receive()
        send(["jsonrpc": "2.0", "method": "textDocument/didOpen", "params": [
            "textDocument": ["uri": uri, "languageId": "yaml", "version": 1, "text": text],
        ]])
        _ = try receive()
    }

    /// Types one space after `attempts: 3` and waits for the diagnostics.
    func keystroke() throws -> Int {
        version += 1
        let at = ["line": 2, "character": 11 + version - 2]
        send(["jsonrpc": "2.0", "method": "textDocument/didChange", "params": [
            "textDocument": ["uri": uri, "version": version],
            "contentChanges": [["range": ["start": at, "end": at], "text": " "]],
        ]])
        return try receive().count
    }

    func send(_ message: [String: Any]) {
        let body = try! JSONSerialization.data(withJSONObject: message)
        input.fileHandleForWriting.write(Data("Content-Length: \(body.count)\r\n\r\n".utf8) + body)
    }

    struct ServerEnded: Error {}

    /// The next message's body.
    func receive() throws -> [UInt8] {
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                let header = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let length = Int(header.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))!
                if buffer.count - end.upperBound >= length {
                    let body = Array(buffer[end.upperBound..<(end.upperBound + length)])
                    buffer.removeFirst(end.upperBound + length)
                    return body
                }
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw ServerEnded() }
            buffer += chunk
        }
    }

    func close() {
        send(["jsonrpc": "2.0", "id": 2, "method": "shutdown"])
        _ = try? receive()
        send(["jsonrpc": "2.0", "method": "exit"])
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}
