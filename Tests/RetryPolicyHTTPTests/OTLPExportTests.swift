#if AsyncHTTPClient && OpenTelemetry  // the traits; the export needs swift-otel's OTLP/HTTP exporter
import ChildProcessSupport
import Foundation
import HTTPTestSupport
import Testing

/// `retry-policy request` with OpenTelemetry's environment variables set:
/// its spans reach a real OTLP/HTTP receiver (opentelemetry-proto's own
/// decoder, in Python) started by the test, and the trace context reaches
/// the server in each attempt's `traceparent`.
@Suite("retry-policy request exports its spans over OTLP/HTTP", .serialized)
struct OTLPExportTests {
    /// The receiver, a child process writing each export as a JSON line.
    final class Receiver {
        let process = Process()
        let input = Pipe()
        let output: URL
        let port: Int

        init() throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("OTLPReceiver/otlp_receiver.py")
            output = FileManager.default.temporaryDirectory.appendingPathComponent("otlp-\(UInt64.random(in: 0...UInt64.max)).jsonl")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            let stdout = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, output.path]
            process.standardOutput = stdout
            // The receiver exits when its standard input closes: with this
            // process, however it ends.
            process.standardInput = input
            try process.run()
            // The first line is the port the receiver bound; end of file
            // first means it could not start (opentelemetry-proto missing).
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line.append(chunk)
            }
            guard let text = String(data: line, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else {
                kill(process.processIdentifier, SIGKILL)
                _ = process.waitForExit()
                throw ReceiverError(message: "the OTLP receiver did not start (python3 with opentelemetry-proto is needed; scripts/test installs it)")
            }
            self.port = port
        }

        func stop() {
            // SIGKILL: a child of the test runner may inherit SIGTERM
            // blocked.
            try? input.fileHandleForWriting.close()
            kill(process.processIdentifier, SIGKILL)
            _ = process.waitForExit()
            try? FileManager.default.removeItem(at: output)
        }

        /// Every span received, from every export.
        func spans() throws -> [Span] {
            let text = try String(contentsOf: output, encoding: .utf8)
            var spans: [Span] = []
            for line in text.split(separator: "\n") {
                let export = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                for resourceSpans in export["resourceSpans"] as? [[String: Any]] ?? [] {
                    let resource = Span.attributes((resourceSpans["resource"] as? [String: Any])?["attributes"])
                    for scope in resourceSpans["scopeSpans"] as? [[String: Any]] ?? [] {
                        for span in scope["spans"] as? [[String: Any]] ?? [] {
                            spans.append(Span(span, resource: resource, contentType: export["contentType"] as? String ?? ""))
                        }
                    }
                }
            }
            return spans
        }
    }

    struct ReceiverError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// One span as the receiver decoded it; ids in hexadecimal, as
    /// `traceparent` writes them.
    struct Span {
        var name: String
        var kind: String
        var traceID: String
        var spanID: String
        var parentSpanID: String
        var attributes: [String: String]
        var resource: [String: String]
        var eventNames: [String]
        var contentType: String

        init(_ json: [String: Any], resource: [String: String], contentType: String) {
            name = json["name"] as? String ?? ""
            kind = json["kind"] as? String ?? ""
            traceID = Self.hex(json["traceId"])
            spanID = Self.hex(json["spanId"])
            parentSpanID = Self.hex(json["parentSpanId"])
            attributes = Self.attributes(json["attributes"])
            eventNames = (json["events"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            self.resource = resource
            self.contentType = contentType
        }

        /// protobuf's JSON mapping writes bytes in base64.
        static func hex(_ value: Any?) -> String {
            guard let text = value as? String, let data = Data(base64Encoded: text) else { return "" }
            return data.map { String(format: "%02x", $0) }.joined()
        }

        static func attributes(_ value: Any?) -> [String: String] {
            var result: [String: String] = [:]
            for attribute in value as? [[String: Any]] ?? [] {
                guard let key = attribute["key"] as? String, let value = attribute["value"] as? [String: Any] else { continue }
                if let string = value["stringValue"] as? String {
                    result[key] = string
                } else if let int = value["intValue"] {
                    result[key] = "\(int)"
                } else if let double = value["doubleValue"] {
                    result[key] = "\(double)"
                } else if let bool = value["boolValue"] {
                    result[key] = "\(bool)"
                }
            }
            return result
        }
    }

    @Test("503 then 200: the receiver gets the request span and a client span per attempt, and the server saw each attempt's context")
    func exportsSpans() async throws {
        let receiver = try Receiver()
        defer { receiver.stop() }
        let server = try await ScriptedHTTPServer.start([.respond(status: 503), .respond(status: 200, body: "hello\n")])
        defer { Task { try await server.shutdown() } }
        let policy = try RequestCommandTests().policyFile(RequestCommandTests.shortRetries)
        let result = try RequestCommandTests().run(
            ["request", server.url + "/greeting", "--policy", policy],
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(receiver.port)",
                "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
                "OTEL_SERVICE_NAME": "otlp-export-test",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "hello\n")

        // Exported before the command exited: nothing to wait for.
        let spans = try receiver.spans()
        let root = try #require(spans.first { $0.name == "retry_policy.request" }, "spans: \(spans.map(\.name))")
        #expect(root.kind == "SPAN_KIND_INTERNAL")
        #expect(root.resource["service.name"] == "otlp-export-test")
        #expect(root.attributes["retry_policy.policy"] == "short")
        #expect(root.attributes["retry_policy.outcome"] == "success")
        #expect(root.eventNames == ["retry_policy.retry"])
        #expect(root.contentType == "application/x-protobuf")
        let attempts = spans.filter { $0.kind == "SPAN_KIND_CLIENT" }.sorted {
            ($0.attributes["retry_policy.attempt"] ?? "") < ($1.attributes["retry_policy.attempt"] ?? "")
        }
        #expect(attempts.map(\.name) == ["GET", "GET"])
        #expect(attempts.allSatisfy { $0.parentSpanID == root.spanID && $0.traceID == root.traceID })
        #expect(attempts.map { $0.attributes["http.request.resend_count"] } == [nil, "1"])
        #expect(attempts.map { $0.attributes["http.response.status_code"] } == ["503", "200"])
        #expect(attempts.map { $0.attributes["error.type"] } == ["status_5xx", nil])
        #expect(attempts.allSatisfy { $0.attributes["server.address"] == "127.0.0.1" })
        // Each attempt's own span is the parent the server sees.
        #expect(server.traceparents == attempts.map { "00-\($0.traceID)-\($0.spanID)-01" })
    }

    @Test("without OpenTelemetry's variables nothing is exported; a gRPC protocol is refused with what to use instead")
    func notConfigured() async throws {
        let server = try await ScriptedHTTPServer.start([.respond(status: 200, body: "hello\n")])
        defer { Task { try await server.shutdown() } }
        let policy = try RequestCommandTests().policyFile(RequestCommandTests.shortRetries)
        let plain = try RequestCommandTests().run(["request", server.url + "/a", "--policy", policy])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(server.traceparents == [nil])

        let grpc = try RequestCommandTests().run(
            ["request", server.url + "/b", "--policy", policy],
            environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"])
        #expect(grpc.status != 0)
        #expect(grpc.stderr.contains("use http/protobuf or http/json"), "\(grpc.stderr)")
        #expect(server.requestCount == 1)
    }
}
#endif
