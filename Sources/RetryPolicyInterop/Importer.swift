import RetryPolicyCore
import RetryPolicyYAML

/// Another layer's configuration to a policy.
public enum Importer {
    /// Imports `bytes` (the file at `path`) written in `format`.
    /// `selection` picks one of several: a resilience4j instance, an AWS
    /// profile, an Istio HTTP route by name.
    public static func importPolicy(
        bytes: [UInt8], path: String, from format: InteropFormat, selection: String? = nil
    ) throws(InteropError) -> ImportedPolicy {
        switch format {
        case .grpc: return try GRPCImporter.run(bytes: bytes, path: path)
        case .envoy: return try EnvoyImporter.run(bytes: bytes, path: path)
        case .istio: return try IstioImporter.run(bytes: bytes, path: path, route: selection)
        case .resilience4j: return try Resilience4jImporter.run(bytes: bytes, path: path, instance: selection)
        case .awsConfig: return try AWSConfigImporter.run(bytes: bytes, path: path, profile: selection)
        }
    }

    /// The format of a file a stack layer names: by its content (a gRPC
    /// service config has `methodConfig`, an Istio resource
    /// `kind: VirtualService`, an Envoy route `retry_policy` or
    /// `virtual_hosts`). `nil` for anything else, such as a policy.
    public static func detectFormat(bytes: [UInt8], path: String) -> InteropFormat? {
        guard let root = try? YAMLParser.parse(bytes: bytes, path: path) else { return nil }
        if ForeignReader.value(root, "version") != nil && (ForeignReader.value(root, "rules") != nil || ForeignReader.value(root, "stack") != nil || ForeignReader.value(root, "name") != nil) {
            return nil
        }
        if ForeignReader.value(root, "methodConfig") != nil || ForeignReader.value(root, "retryThrottling") != nil { return .grpc }
        if case .scalar(let kind)? = ForeignReader.value(root, "kind"), kind.value == "VirtualService" { return .istio }
        if ForeignReader.value(root, "resilience4j") != nil || ForeignReader.value(root, "resilience4j.retry") != nil { return .resilience4j }
        if EnvoyImporter.findRetryPolicy(in: root).first != nil || ForeignReader.value(root, "retry_on") != nil { return .envoy }
        return nil
    }

    /// The base name of a path without its extension, as a policy name.
    static func baseName(_ path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        if let dot = last.lastIndex(of: "."), dot != last.startIndex { return String(last[..<dot]) }
        return last
    }

    static func start(_ path: String) -> SourceLocation { SourceLocation(file: path, line: 1, column: 1) }
}

/// gRPC service config JSON (gRFC A6).
enum GRPCImporter {
    static func run(bytes: [UInt8], path: String) throws(InteropError) -> ImportedPolicy {
        let root = try ForeignReader.parse(bytes: bytes, path: path)
        var reader = ForeignReader(file: path)
        guard reader.mapping(root, "service config") != nil else { throw InteropError(reader.diagnostics) }
        var imported = ImportedPolicy(name: Importer.baseName(path), source: path, format: .grpc, attempts: 1, backoff: .immediate)
        imported.retryAfter = RetryAfterPolicy(honor: true, cap: nil, aboveCap: .stop, combine: .server,
                                               headers: [RetryAfterPolicy.Header(name: GRPCExporter.pushbackHeader, format: .milliseconds)])
        imported.comment("retry_after", "gRPC honours the server's grpc-retry-pushback-ms exactly, with no cap (gRFC A6).")
        imported.comment("idempotency", "gRPC retries every method.")

        var chosen: YAMLNode?
        if let node = ForeignReader.value(root, "methodConfig"), let configs = reader.list(node, "methodConfig") {
            var withRetry: [YAMLNode] = []
            for (index, config) in configs.enumerated() {
                guard reader.mapping(config, "methodConfig[\(index)]") != nil else { continue }
                if ForeignReader.value(config, "retryPolicy") != nil { withRetry.append(config) }
                if let hedging = ForeignReader.value(config, "hedgingPolicy") {
                    imported.warn("hedgingPolicy", at: hedging.location, "hedging (parallel attempts) has no policy equivalent; not imported")
                }
            }
            chosen = withRetry.first ?? configs.first
            if withRetry.count > 1 {
                imported.warn("methodConfig", at: withRetry[1].location, "\(withRetry.count) method configs have a retryPolicy; only the first is imported")
                imported.comment("", "The service config has \(withRetry.count) retry policies; this is the first.")
            }
        }
        if let config = chosen {
            if let timeout = ForeignReader.value(config, "timeout"), let total = reader.protoDuration(timeout, "methodConfig.timeout"), total > .zero {
                imported.timeouts.total = roundedToPolicy(total, key: "timeouts", imported: &imported)
                imported.comment("timeouts", "methodConfig.timeout is the call's deadline, across every attempt.")
            }
            if let node = ForeignReader.value(config, "retryPolicy") {
                readRetryPolicy(node, reader: &reader, imported: &imported)
            }
        }
        if chosen.flatMap({ ForeignReader.value($0, "retryPolicy") }) == nil {
            imported.comment("attempts", "No retryPolicy: gRPC makes a single attempt.")
        }
        if let node = ForeignReader.value(root, "retryThrottling") {
            readThrottling(node, reader: &reader, imported: &imported)
        }
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return imported
    }

    static func roundedToPolicy(_ duration: Duration, key: String, imported: inout ImportedPolicy) -> Duration {
        let (value, rounded) = ForeignDuration.policyPrecision(duration)
        if rounded { imported.comment(key, "\(ForeignDuration.protoText(duration)) rounded to whole milliseconds.") }
        return value
    }

    /// gRPC's own validation (grpc-core's retry service config parser):
    /// every field required, maxAttempts at least 2, backoffs and
    /// multiplier greater than zero, codes non-empty and known.
    static func readRetryPolicy(_ node: YAMLNode, reader: inout ForeignReader, imported: inout ImportedPolicy) {
        guard reader.mapping(node, "retryPolicy") != nil else { return }
        func required(_ key: String) -> YAMLNode? {
            if let value = ForeignReader.value(node, key) { return value }
            reader.error(.missingField, node, "retryPolicy: \(key) is required")
            return nil
        }
        if let value = required("maxAttempts"), let attempts = reader.integer(value, "retryPolicy.maxAttempts") {
            if attempts < 2 {
                reader.error(.invalidValue, value, "retryPolicy.maxAttempts: must be at least 2, found \(attempts)")
            } else if attempts > GRPCExporter.maxAttemptsLimit {
                imported.attempts = GRPCExporter.maxAttemptsLimit
                imported.warn("maxAttempts", at: value.location, "gRPC treats maxAttempts \(attempts) as \(GRPCExporter.maxAttemptsLimit)")
                imported.comment("attempts", "maxAttempts \(attempts): gRPC treats values above 5 as 5.")
            } else {
                imported.attempts = attempts
            }
        }
        var initial: Duration?
        var maximum: Duration?
        for key in ["initialBackoff", "maxBackoff"] {
            if let value = required(key), let duration = reader.protoDuration(value, "retryPolicy.\(key)") {
                if duration <= .zero {
                    reader.error(.invalidValue, value, "retryPolicy.\(key): must be greater than zero")
                } else if key == "initialBackoff" {
                    initial = roundedToPolicy(duration, key: "backoff", imported: &imported)
                } else {
                    maximum = roundedToPolicy(duration, key: "backoff", imported: &imported)
                }
            }
        }
        var multiplier: Double?
        if let value = required("backoffMultiplier"), let number = reader.number(value, "retryPolicy.backoffMultiplier") {
            if !(number > 0) {
                reader.error(.invalidValue, value, "retryPolicy.backoffMultiplier: must be greater than zero, found \(number)")
            } else if number > 100 {
                imported.warn("backoffMultiplier", at: value.location, "the policy format allows multipliers up to 100; \(number) imported as 100")
                multiplier = 100
            } else {
                multiplier = number
            }
        }
        if let initial, let maximum, let multiplier {
            imported.backoff = Backoff(initial: initial, max: maximum, multiplier: multiplier, jitter: .full)
            imported.comment("backoff", "gRPC waits a random time in [0, min(initialBackoff x multiplier^(n-1), maxBackoff)] (full jitter).")
        }
        if let value = required("retryableStatusCodes"), let items = reader.list(value, "retryPolicy.retryableStatusCodes") {
            if items.isEmpty { reader.error(.invalidValue, value, "retryPolicy.retryableStatusCodes: must be non-empty") }
            var codes: [GRPCStatus] = []
            for (index, item) in items.enumerated() {
                let what = "retryPolicy.retryableStatusCodes[\(index)]"
                guard case .scalar(let scalar) = item else {
                    reader.error(.wrongType, item, "\(what): expected a status code name or number, found \(item.kindDescription)")
                    continue
                }
                // gRFC A6 also allows numbers, but gRPC's C core (grpcio and the other
                // wrapped languages) rejects them: "is not a string".
                guard case .string(let name) = scalar.resolved else {
                    reader.error(.wrongType, item, "\(what): expected a status code name such as UNAVAILABLE (gRPC's C core rejects numbers), found \(scalar.kindDescription)")
                    continue
                }
                guard let code = GRPCStatus(name: name) else {
                    reader.error(.invalidValue, item, "\(what): expected a gRPC status code name such as UNAVAILABLE, found \(scalar.kindDescription)")
                    continue
                }
                codes.append(code)
            }
            var lines: [String] = []
            for code in codes {
                imported.retriedStatuses.formUnion(code.httpStatuses)
                imported.retriedTransports.formUnion(code.transports)
                let statuses = ImportedPolicy.patterns(Array(code.httpStatuses)).map(\.description)
                let transports = code.transports.sorted().map(\.rawValue)
                if statuses.isEmpty && transports.isEmpty {
                    lines.append("\(code.name): no HTTP status or transport failure maps to it; not represented.")
                    imported.warn("retryableStatusCodes", at: value.location, "gRPC status \(code.name) has no HTTP or transport equivalent; not imported")
                } else {
                    let parts = (statuses.isEmpty ? [] : ["status " + statuses.joined(separator: ", ")]) + (transports.isEmpty ? [] : ["transport " + transports.joined(separator: ", ")])
                    lines.append("\(code.name) = \(parts.joined(separator: "; ")).")
                }
            }
            imported.comment("rules", "retryableStatusCodes by the standard HTTP-to-gRPC mapping (grpc doc/http-grpc-status-mapping.md):")
            for line in lines { imported.comment("rules", "  " + line) }
            if codes.contains(.cancelled) { imported.comment("rules", "A cancelled call is never retried, whatever the rule says.") }
        }
    }

    static func readThrottling(_ node: YAMLNode, reader: inout ForeignReader, imported: inout ImportedPolicy) {
        guard reader.mapping(node, "retryThrottling") != nil else { return }
        var maxTokens: Int?
        var thousandths: Int?
        if let value = ForeignReader.value(node, "maxTokens") {
            if let tokens = reader.integer(value, "retryThrottling.maxTokens") {
                if tokens <= 0 {
                    reader.error(.invalidValue, value, "retryThrottling.maxTokens: must be greater than zero, found \(tokens)")
                } else if tokens > 1000 {
                    imported.warn("maxTokens", at: value.location, "gRPC allows maxTokens up to 1000; \(tokens) imported as 1000")
                    maxTokens = 1000
                } else {
                    maxTokens = tokens
                }
            }
        } else {
            reader.error(.missingField, node, "retryThrottling: maxTokens is required")
        }
        if let value = ForeignReader.value(node, "tokenRatio") {
            if let ratio = reader.number(value, "retryThrottling.tokenRatio") {
                if !(ratio > 0) {
                    reader.error(.invalidValue, value, "retryThrottling.tokenRatio: must be greater than zero, found \(ratio)")
                } else {
                    // gRPC reads three decimals of the number as written;
                    // 2.042 is 2041.9999... thousandths as a Double, so a
                    // value within rounding error of a thousandth is that
                    // thousandth, and only a fourth decimal is cut.
                    let scaled = ratio * 1000
                    let nearest = scaled.rounded()
                    let exact = abs(scaled - nearest) <= 1e-6 * max(1, nearest)
                    thousandths = Int(exact ? nearest : scaled.rounded(.down))
                    if !exact {
                        imported.warn("tokenRatio", at: value.location, "gRPC keeps three decimals of tokenRatio; \(ratio) is used as \(Double(thousandths!) / 1000)")
                    }
                    if thousandths! == 0 { thousandths = 1 }
                    if thousandths! > 1_000_000 {
                        imported.warn("tokenRatio", at: value.location, "the policy format allows token_ratio up to 1000; \(ratio) imported as 1000")
                        thousandths = 1_000_000
                    }
                }
            }
        } else {
            reader.error(.missingField, node, "retryThrottling: tokenRatio is required")
        }
        if let maxTokens, let thousandths {
            imported.budget = .grpc(maxTokens: max(min(maxTokens, 1000), 1), tokenRatioThousandths: thousandths)
            imported.comment("budget", "retryThrottling {maxTokens: \(maxTokens), tokenRatio: \(GRPCExporter.ratioText(thousandths: thousandths))}: the same rule")
            imported.comment("budget", "(every retryable failure costs a token, every success returns tokenRatio,")
            imported.comment("budget", "retries only while more than maxTokens/2 remain).")
        }
    }
}
