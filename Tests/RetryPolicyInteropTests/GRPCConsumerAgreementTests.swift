import Foundation
import RetryPolicyCore
import RetryPolicyInterop
import Testing

/// Service configs written for this test from gRFC A6 and gRPC's service
/// config documentation, each given to grpcio (gRPC's C core) and to
/// import: what grpcio rejects, import refuses with a located error; what
/// grpcio accepts, import reads (or says it holds no retry settings).
@Suite("gRPC decides which service configs are valid")
struct GRPCConsumerAgreementTests {
    static func retryPolicy(_ overrides: [String: String] = [:]) -> String {
        var fields: [(String, String)] = [
            ("maxAttempts", "3"), ("initialBackoff", #""0.1s""#), ("maxBackoff", #""1s""#), ("backoffMultiplier", "2"),
            ("retryableStatusCodes", #"["UNAVAILABLE"]"#),
        ]
        for (key, value) in overrides {
            if let index = fields.firstIndex(where: { $0.0 == key }) {
                if value.isEmpty { fields.remove(at: index) } else { fields[index].1 = value }
            } else {
                fields.append((key, value))
            }
        }
        return "{" + fields.map { #""\#($0.0)": \#($0.1)"# }.joined(separator: ", ") + "}"
    }

    static func config(_ retry: [String: String] = [:], name: String = #"[{"service": "helloworld.Greeter"}]"#, extra: String = "") -> String {
        #"{"methodConfig": [{"name": \#(name), "retryPolicy": \#(retryPolicy(retry))\#(extra)}]}"#
    }

    static let configs: [String] = [
        config(),
        config(["maxAttempts": "5"]),
        config(["maxAttempts": "100"]),  // clamped to 5, accepted
        config(["maxAttempts": #""4""#]),  // a number in a string
        config(["maxAttempts": "1"]),
        config(["maxAttempts": "-5"]),
        config(["maxAttempts": "3.0"]),
        config(["maxAttempts": "2147483648"]),
        config(["maxAttempts": ""]),
        config(["initialBackoff": #""99999999999s""#]),  // huge, within protobuf's range
        config(["maxBackoff": #""315576000000s""#]),
        config(["initialBackoff": #""315576000001s""#]),
        config(["initialBackoff": #""-1s""#]),
        config(["initialBackoff": #""0s""#]),
        config(["initialBackoff": #""0.0009s""#]),  // below a millisecond: zero to gRPC
        config(["initialBackoff": #""0.001s""#]),
        config(["initialBackoff": #"".01s""#]),
        config(["initialBackoff": #""1.s""#]),
        config(["initialBackoff": #""1.0000000001s""#]),
        config(["initialBackoff": #""100ms""#]),
        config(["initialBackoff": #""1.5e1s""#]),
        config(["initialBackoff": "1"]),
        config(["backoffMultiplier": "0.5"]),
        config(["backoffMultiplier": "0"]),
        config(["backoffMultiplier": "-2"]),
        config(["backoffMultiplier": "1e308"]),
        config(["backoffMultiplier": #""2""#]),
        config(["backoffMultiplier": #""abc""#]),
        config(["backoffMultiplier": "true"]),
        config(["retryableStatusCodes": "[]"]),
        config(["retryableStatusCodes": #"["unavailable"]"#]),
        config(["retryableStatusCodes": "[14]"]),
        config(["retryableStatusCodes": #"["UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED"]"#]),
        config(["retryableStatusCodes": #""UNAVAILABLE""#]),
        config(name: #"[{"service": "a", "method": "B"}, {"service": "a"}]"#),
        config(name: #"[{"method": "B"}]"#),
        config(name: #"[{}]"#),
        config(name: #"[{"service": 3}]"#),
        config(name: #"{"service": "a"}"#),
        config(name: #"[{"service": "a", "method": "B"}, {"service": "a", "method": "B"}]"#),
        config(extra: #", "timeout": "30s""#),
        config(extra: #", "timeout": "-1s""#),
        config(extra: #", "timeout": 30"#),
        config(extra: #", "waitForReady": true"#),
        config(extra: #", "waitForReady": "yes""#),
        config(extra: #", "maxRequestMessageBytes": 1048576"#),
        config(extra: #", "maxRequestMessageBytes": "x""#),
        config(extra: #", "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0.5s"}"#),
        #"{"methodConfig": [{"name": [{"service": "a"}], "hedgingPolicy": {"maxAttempts": 3, "hedgingDelay": "0.5s", "nonFatalStatusCodes": ["UNAVAILABLE"]}}]}"#,
        #"{"methodConfig": [{"name": [{"service": "a"}], "hedgingPolicy": {"maxAttempts": "many"}}]}"#,
        #"{"methodConfig": [{"name": [{}]}, {"name": [{"service": ""}]}]}"#,
        #"{"methodConfig": [{"name": [{"service": "a"}], "retryPolicy": 3}]}"#,
        #"{"methodConfig": {"name": [{}]}}"#,
        #"{"methodConfig": [{"name": [{"service": "a"}], "timeout": "5s"}]}"#,
        #"{"methodConfig": [{"name": [{"service": "a"}], "retryPolicy": {"MaxAttempts": 4, "InitialBackoff": ".01s", "MaxBackoff": ".01s", "BackoffMultiplier": 1.0, "RetryableStatusCodes": ["UNAVAILABLE"]}}]}"#,
        #"{"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}, "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"retryThrottling": {"maxTokens": 0, "tokenRatio": 0.1}}"#,
        #"{"retryThrottling": {"maxTokens": 10.5, "tokenRatio": 0.1}}"#,
        #"{"retryThrottling": {"maxTokens": 1001, "tokenRatio": 0.1}, "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.0001}}"#,
        #"{"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1234}, "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"retryThrottling": {"maxTokens": 10, "tokenRatio": 1e308}}"#,
        #"{"retryThrottling": {"maxTokens": 10, "tokenRatio": -1}}"#,
        #"{"retryThrottling": {"maxTokens": 10, "tokenRatio": "0.5"}, "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"retryThrottling": {"maxTokens": 10}}"#,
        #"{"retryThrottling": 3}"#,
        #"{"loadBalancingPolicy": 3, "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"loadBalancingConfig": [{"round_robin": {}}], "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"loadBalancingConfig": [], "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"loadBalancingConfig": [{}], "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"loadBalancingConfig": [{"round_robin": {}, "pick_first": {}}], "methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}"#,
        #"{"healthCheckConfig": {"serviceName": 3}}"#,
        #"[{"clientLanguage": ["c++"], "percentage": 100, "serviceConfig": {"methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy())}]}}]"#,
        #"[{"clientLanguage": ["c++"], "serviceConfig": {"methodConfig": [{"name": [{}], "retryPolicy": \#(retryPolicy(["maxAttempts": "1"]))}]}}]"#,
        #"[1]"#,
        #""not a config""#,
    ]

    @Test("grpcio and import agree on every config")
    func agree() throws {
        guard GRPCValidationTests.python() != nil else {
            Issue.record("python3 with grpcio is needed: gRPC itself decides which configs are valid")
            return
        }
        let verdicts = try GRPCValidationTests.validate(Self.configs)
        try #require(verdicts.count == Self.configs.count)
        for (config, verdict) in zip(Self.configs, verdicts) {
            let file = ForeignFile(bytes: Array(config.utf8), path: "service-config.json")
            var refusal: InteropError?
            do {
                for policy in try Importer.importEvery(file, from: .grpc).policies {
                    _ = try loadPolicy(policyFile(policy))
                }
            } catch let error as InteropError {
                refusal = error
            }
            let invalid = refusal?.diagnostics.contains { ["RPI01", "RPI02", "RPI03", "RP001", "RP003", "RP004"].contains($0.id) } ?? false
            #expect(invalid == verdict.hasPrefix("rejected"), "grpcio: \(verdict)\nimport: \(refusal?.description ?? "imported")\n\(config)")
            for diagnostic in refusal?.diagnostics ?? [] {
                #expect(diagnostic.location.line == 1 && diagnostic.location.column >= 1, "\(diagnostic)")
            }
        }
    }

    @Test("a huge backoff imports at the policy's 100-day maximum, with a warning at the value")
    func hugeBackoff() throws {
        let imported = try Importer.importPolicy(
            bytes: Array(Self.config(["initialBackoff": #""99999999999s""#, "maxBackoff": #""99999999999s""#]).utf8), path: "huge.json", from: .grpc)
        #expect(imported.backoff.initial == DurationText.maximum && imported.backoff.max == DurationText.maximum)
        #expect(imported.warnings.contains { $0.feature == "initialBackoff" && $0.location.line == 1 && $0.message.contains("100 days") })
        _ = try loadPolicy(policyFile(imported))
    }
}
