import ChildProcessSupport
import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// Exported service configs are given to a real gRPC implementation
/// (grpcio, the Python package, as a channel's `grpc.service_config`);
/// gRPC validates the config when the channel is created and fails the
/// call with "errors validating service config" when it rejects it.
@Suite("gRPC accepts what export writes")
struct GRPCValidationTests {
    static let script = """
        import json, sys
        import grpc
        results = []
        for config in json.load(sys.stdin):
            # The DNS TXT record form: the first choice's serviceConfig.
            try:
                parsed = json.loads(config)
                if isinstance(parsed, list) and parsed and isinstance(parsed[0], dict):
                    parsed = parsed[0]
                if isinstance(parsed, dict) and "serviceConfig" in parsed:
                    config = json.dumps(parsed["serviceConfig"])
            except ValueError:
                pass
            channel = grpc.insecure_channel("127.0.0.1:1", options=[("grpc.service_config", config), ("grpc.enable_retries", 1)])
            try:
                channel.unary_unary("/retry.policy.Probe/Call")(b"", timeout=0.5)
                results.append("ok")
            except grpc.RpcError as error:
                details = error.details() or ""
                results.append("rejected: " + details if "service config" in details else "ok")
            finally:
                channel.close()
        print(json.dumps(results))
        """

    static func python() -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// grpcio's verdict on each config: "ok" or "rejected: why".
    static func validate(_ configs: [String]) throws -> [String] {
        guard let python = python() else { return [] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let payload = try JSONSerialization.data(withJSONObject: configs)
        input.fileHandleForWriting.write(payload)
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        guard process.waitForExit() == 0 else {
            Issue.record("python3 with grpcio failed (install it: python3 -m pip install grpcio): \(String(decoding: stderr.suffix(2000), as: UTF8.self))")
            return []
        }
        return (try JSONSerialization.jsonObject(with: data) as? [String]) ?? []
    }

    @Test("grpcio accepts exported service configs, and rejects what import rejects")
    func grpcioAgrees() throws {
        guard Self.python() != nil else {
            print("skipped: python3 is not installed, so exported service configs cannot be checked with grpcio")
            return
        }
        var configs: [String] = []
        for seed in 0..<30 {
            configs.append(GRPCExporter.export(try expressiblePolicy(seed: seed, format: .grpc), file: "p.yaml").text)
        }
        // Outside the expressible subset too: clamped attempts, zero backoff, every budget shape.
        var wide = try expressiblePolicy(seed: 99, format: .grpc)
        wide.attempts = 9
        wide.backoff = .immediate
        wide.budget = RetryBudgetConfiguration(capacity: 100_000, retryCost: 3, timeoutRetryCost: 7, successRefund: 0)
        configs.append(GRPCExporter.export(wide, file: "p.yaml").text)

        // Configs gRPC's own validation rejects, which import must reject with a located error.
        let invalid = [
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 1, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#,
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["FOO"]}}]}"#,
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": []}}]}"#,
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#,
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#,
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 0, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#,
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "100ms", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}"#,
            #"{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": [14]}}]}"#,
            #"{"retryThrottling": {"maxTokens": 0, "tokenRatio": 0.1}}"#,
        ]
        let verdicts = try Self.validate(configs + invalid)
        guard verdicts.count == configs.count + invalid.count else { return }
        for (config, verdict) in zip(configs, verdicts) {
            #expect(verdict == "ok", "grpcio rejected an exported config: \(verdict)\n\(config)")
        }
        for (config, verdict) in zip(invalid, verdicts.suffix(invalid.count)) {
            #expect(verdict.hasPrefix("rejected"), "grpcio accepted \(config)")
            #expect(throws: InteropError.self, "import accepted \(config)") {
                try Importer.importPolicy(bytes: Array(config.utf8), path: "bad.json", from: .grpc)
            }
            do {
                _ = try Importer.importPolicy(bytes: Array(config.utf8), path: "bad.json", from: .grpc)
            } catch {
                #expect(error.diagnostics.allSatisfy { $0.location.file == "bad.json" && $0.location.line == 1 && $0.location.column > 1 })
            }
        }
    }
}
