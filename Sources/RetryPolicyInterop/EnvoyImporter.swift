import RetryPolicyCore
import RetryPolicyYAML

/// Envoy's `retry_on` conditions read into an import, shared by Envoy and
/// Istio (whose `retryOn` is Envoy's, plus status numbers).
enum RetryOnReader {
    static let grpcConditions: Set<String> = ["cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"]
    static let known: Set<String> = ["5xx", "gateway-error", "reset", "connect-failure", "retriable-4xx", "refused-stream",
                                     "retriable-status-codes", "retriable-headers", "envoy-ratelimited",
                                     "http3-post-connect-failure", "reset-before-request"]

    /// Applies `conditions` and `codes` to `imported`; `at` locates warnings.
    static func apply(_ conditions: [String], codes: [Int], at: SourceLocation, target: String, imported: inout ImportedPolicy) {
        let (statuses, transports) = EnvoyConditions.retried(conditions: conditions, codes: codes)
        imported.retriedStatuses = statuses
        imported.retriedTransports = transports
        var lines: [String] = []
        for condition in conditions {
            switch condition {
            case "5xx": lines.append("5xx: every 5xx status, connection failures and resets (not only 502-504 as gateway-error).")
            case "gateway-error": lines.append("gateway-error: 502, 503, 504, connection failures and resets (5xx would add every 5xx).")
            case "reset": lines.append("reset: no response at all (disconnect, reset, read or per-try timeout) = connection_lost, timeout.")
            case "connect-failure": lines.append("connect-failure: connection_refused, dns, tls, offline.")
            case "retriable-4xx": lines.append("retriable-4xx: 409 only.")
            case "retriable-status-codes":
                lines.append("retriable-status-codes: " + (codes.isEmpty ? "no codes listed, so none." : codes.map(String.init).joined(separator: ", ") + "."))
            case "refused-stream":
                lines.append("refused-stream: an HTTP/2 REFUSED_STREAM, which has no transport class here.")
            case "reset-before-request", "http3-post-connect-failure":
                lines.append("\(condition): a connection-level condition with no policy equivalent.")
            case _ where grpcConditions.contains(condition):
                lines.append("\(condition): applies to gRPC responses (grpc-status), which a policy of HTTP statuses cannot name.")
            case "retriable-headers", "envoy-ratelimited":
                lines.append("\(condition): depends on response headers; not imported.")
                imported.warn("retry_on", at: at, "\(target)'s \(condition) retries on response headers, which a policy cannot match; not imported")
            default:
                lines.append("\(condition): unknown condition; ignored.")
                imported.warn("retry_on", at: at, "\(target) retry condition '\(condition)' is not known; ignored")
            }
        }
        if conditions.isEmpty { lines.append("No retry conditions: nothing is retried.") }
        imported.comment("rules", "\(target) retry conditions:")
        for line in lines { imported.comment("rules", "  " + line) }
        imported.comment("idempotency", "\(target) retries every method.")
    }

    static func split(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// Envoy route configuration: a RouteConfiguration, a virtual host, a
/// route, a RouteAction, or a bare RetryPolicy.
enum EnvoyImporter {
    /// Envoy's documented defaults (config.route.v3.RetryPolicy,
    /// config.route.v3.RouteAction).
    static let defaultNumRetries = 1
    static let defaultBaseInterval: Duration = .milliseconds(25)
    static let defaultRouteTimeout: Duration = .seconds(15)

    /// Mappings that hold `retry_policy` (a RouteAction or a virtual
    /// host), in document order.
    static func findRetryPolicy(in node: YAMLNode) -> [YAMLNode] {
        var found: [YAMLNode] = []
        func walk(_ node: YAMLNode, depth: Int) {
            guard depth < 32 else { return }
            switch node {
            case .mapping(let entries, _):
                if entries.contains(where: { $0.key.value == "retry_policy" }) { found.append(node) }
                for entry in entries where entry.key.value != "retry_policy" { walk(entry.value, depth: depth + 1) }
            case .sequence(let items, _):
                for item in items { walk(item, depth: depth + 1) }
            case .scalar: break
            }
        }
        walk(node, depth: 0)
        return found
    }

    static func run(bytes: [UInt8], path: String) throws(InteropError) -> ImportedPolicy {
        let root = try ForeignReader.parse(bytes: bytes, path: path)
        var reader = ForeignReader(file: path)
        var imported = ImportedPolicy(name: Importer.baseName(path), source: path, format: .envoy, attempts: 1, backoff: .immediate)
        let retryPolicy: YAMLNode
        var routeAction: YAMLNode?
        if ForeignReader.value(root, "retry_on") != nil || ForeignReader.value(root, "num_retries") != nil {
            retryPolicy = root
            imported.comment("timeouts", "A bare retry_policy: the route's timeout is not known; Envoy's default is 15s.")
        } else {
            let holders = findRetryPolicy(in: root)
            guard let holder = holders.first, let node = ForeignReader.value(holder, "retry_policy") else {
                throw InteropError([Diagnostic(.notThisFormat, at: root.location, "expected an Envoy route configuration with a retry_policy (or a bare RetryPolicy with retry_on), found none")])
            }
            if holders.count > 1 {
                imported.warn("retry_policy", at: ForeignReader.keyLocation(holders[1], "retry_policy") ?? holders[1].location,
                              "\(holders.count) retry policies in the file; only the first is imported")
                imported.comment("", "The file has \(holders.count) retry policies; this is the first.")
            }
            retryPolicy = node
            // A RouteAction has `cluster`-like siblings; a virtual host has `domains`.
            if ForeignReader.value(holder, "domains") == nil { routeAction = holder }
        }
        guard reader.mapping(retryPolicy, "retry_policy") != nil else { throw InteropError(reader.diagnostics) }
        readRetryPolicy(retryPolicy, reader: &reader, imported: &imported, target: "Envoy")

        if let routeAction {
            if let node = ForeignReader.value(routeAction, "timeout"), let timeout = reader.protoDuration(node, "timeout") {
                if timeout > .zero {
                    imported.timeouts.total = GRPCImporter.roundedToPolicy(timeout, key: "timeouts", imported: &imported)
                    imported.comment("timeouts", "The route's timeout covers every attempt.")
                } else {
                    imported.comment("timeouts", "The route's timeout is 0s: no deadline.")
                }
            } else {
                imported.timeouts.total = defaultRouteTimeout
                imported.comment("timeouts", "No route timeout: Envoy's default 15s covers every attempt.")
            }
        } else if imported.timeouts.total == nil && ForeignReader.value(root, "retry_on") == nil {
            imported.comment("timeouts", "A virtual host's retry_policy: each route's timeout applies (Envoy's default 15s).")
        }
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return imported
    }

    static func readRetryPolicy(_ node: YAMLNode, reader: inout ForeignReader, imported: inout ImportedPolicy, target: String) {
        var retries = defaultNumRetries
        if let value = ForeignReader.value(node, "num_retries") {
            let number: Int?
            if case .mapping = value, let inner = ForeignReader.value(value, "value") {
                number = reader.integer(inner, "num_retries.value")
            } else {
                number = reader.integer(value, "num_retries")
            }
            if let number {
                if number < 0 {
                    reader.error(.invalidValue, value, "num_retries: must be zero or more, found \(number)")
                } else {
                    retries = number
                }
            }
        } else {
            imported.comment("attempts", "num_retries absent: Envoy's default is 1 retry.")
        }
        if retries > 99 {
            imported.warn("num_retries", at: ForeignReader.keyLocation(node, "num_retries") ?? node.location, "the policy format allows 100 attempts; num_retries \(retries) imported as 99")
            retries = 99
        }
        imported.attempts = retries + 1
        imported.comment("attempts", "num_retries \(retries) + the first attempt.")

        var codes: [Int] = []
        if let value = ForeignReader.value(node, "retriable_status_codes"), let items = reader.list(value, "retriable_status_codes") {
            for (index, item) in items.enumerated() {
                if let code = reader.integer(item, "retriable_status_codes[\(index)]") {
                    if StatusPattern.validCodes.contains(code) { codes.append(code) } else {
                        imported.warn("retriable_status_codes", at: item.location, "status \(code) is outside 100-599; ignored")
                    }
                }
            }
        }
        var conditions: [String] = []
        if let value = ForeignReader.value(node, "retry_on"), let text = reader.string(value, "retry_on") {
            conditions = RetryOnReader.split(text)
        }
        let conditionsAt = ForeignReader.keyLocation(node, "retry_on") ?? node.location
        if !codes.isEmpty && !conditions.contains("retriable-status-codes") {
            imported.comment("rules", "retriable_status_codes is listed but retry_on lacks retriable-status-codes, so Envoy ignores it.")
            codes = []
        }
        RetryOnReader.apply(conditions, codes: codes, at: conditionsAt, target: target, imported: &imported)

        if let value = ForeignReader.value(node, "per_try_timeout"), let timeout = reader.protoDuration(value, "per_try_timeout"), timeout > .zero {
            imported.timeouts.perAttempt = GRPCImporter.roundedToPolicy(timeout, key: "timeouts", imported: &imported)
        }

        var base = defaultBaseInterval
        var maximum: Duration?
        if let value = ForeignReader.value(node, "retry_back_off"), reader.mapping(value, "retry_back_off") != nil {
            if let baseNode = ForeignReader.value(value, "base_interval") {
                if let parsed = reader.protoDuration(baseNode, "retry_back_off.base_interval") {
                    if parsed <= .zero {
                        reader.error(.invalidValue, baseNode, "retry_back_off.base_interval: must be greater than zero")
                    } else {
                        base = max(parsed, .milliseconds(1))
                    }
                }
            } else {
                reader.error(.missingField, value, "retry_back_off: base_interval is required")
            }
            if let maxNode = ForeignReader.value(value, "max_interval"), let parsed = reader.protoDuration(maxNode, "retry_back_off.max_interval") {
                if parsed < base {
                    reader.error(.invalidValue, maxNode, "retry_back_off.max_interval: must be greater than or equal to base_interval")
                } else {
                    maximum = parsed
                }
            }
            imported.comment("backoff", "retry_back_off: a random wait in [0, min(base_interval x 2^(n-1), max_interval)) (full jitter).")
        } else {
            imported.comment("backoff", "No retry_back_off: Envoy's default base_interval 25ms, max_interval 10 x base, full jitter.")
        }
        if maximum == nil && ForeignReader.value(node, "retry_back_off") != nil {
            imported.comment("backoff", "max_interval absent: 10 x base_interval.")
        }
        let (roundedBase, _) = ForeignDuration.policyPrecision(base)
        let (roundedMax, _) = ForeignDuration.policyPrecision(maximum ?? base * 10)
        imported.backoff = Backoff(initial: roundedBase, max: roundedMax, multiplier: 2, jitter: .full)

        if let value = ForeignReader.value(node, "rate_limited_retry_back_off"), reader.mapping(value, "rate_limited_retry_back_off") != nil {
            var headers: [RetryAfterPolicy.Header] = []
            if let list = ForeignReader.value(value, "reset_headers"), let items = reader.list(list, "rate_limited_retry_back_off.reset_headers") {
                for (index, item) in items.enumerated() {
                    guard reader.mapping(item, "reset_headers[\(index)]") != nil else { continue }
                    guard let nameNode = ForeignReader.value(item, "name"), let name = reader.string(nameNode, "reset_headers[\(index)].name") else {
                        if ForeignReader.value(item, "name") == nil { reader.error(.missingField, item, "reset_headers[\(index)]: name is required") }
                        continue
                    }
                    var format = RetryAfterPolicy.Header.Format.seconds
                    if let formatNode = ForeignReader.value(item, "format"), let text = reader.string(formatNode, "reset_headers[\(index)].format") {
                        switch text {
                        case "SECONDS": format = .seconds
                        case "UNIX_TIMESTAMP": format = .unixSeconds
                        default: reader.error(.invalidValue, formatNode, "reset_headers[\(index)].format: expected SECONDS or UNIX_TIMESTAMP, found \"\(text)\"")
                        }
                    }
                    headers.append(RetryAfterPolicy.Header(name: name, format: format))
                }
            } else if ForeignReader.value(value, "reset_headers") == nil {
                reader.error(.missingField, value, "rate_limited_retry_back_off: reset_headers is required")
            }
            var cap = EnvoyExporter.defaultRateLimitedMaxInterval
            if let maxNode = ForeignReader.value(value, "max_interval"), let parsed = reader.protoDuration(maxNode, "rate_limited_retry_back_off.max_interval") {
                cap = parsed
            } else {
                imported.comment("retry_after", "max_interval absent: Envoy's default 300s.")
            }
            if !headers.isEmpty {
                imported.retryAfter = RetryAfterPolicy(honor: true, cap: ForeignDuration.policyPrecision(cap).0, aboveCap: .ignore, combine: .server, headers: headers)
                imported.comment("retry_after", "rate_limited_retry_back_off: a delay above max_interval is discarded and the backoff used (above_cap: ignore).")
                imported.warn("rate_limited_retry_back_off", at: value.location,
                              "Envoy waits a random time between the server's delay and 1.5 times it; imported as exactly the server's delay")
            }
        } else {
            imported.comment("retry_after", "No rate_limited_retry_back_off: Envoy does not read server delays.")
        }
        for key in ["retriable_headers", "retriable_request_headers", "retry_host_predicate", "retry_priority", "retry_options_predicates"] {
            if let value = ForeignReader.value(node, key) {
                imported.warn(key, at: value.location, "\(key) has no policy equivalent; not imported")
            }
        }
    }
}

/// Istio VirtualService HTTP routes' `retries` and `timeout`.
enum IstioImporter {
    /// Istio's documented defaults (networking.istio.io HTTPRetry).
    static let defaultAttempts = 2
    static let defaultRetryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"

    static func run(bytes: [UInt8], path: String, route: String?) throws(InteropError) -> ImportedPolicy {
        let root = try ForeignReader.parse(bytes: bytes, path: path)
        var reader = ForeignReader(file: path)
        var imported = ImportedPolicy(name: Importer.baseName(path), source: path, format: .istio, attempts: 1, backoff: .immediate)
        if case .scalar(let kind)? = ForeignReader.value(root, "kind"), kind.value != "VirtualService" {
            throw InteropError([Diagnostic(.notThisFormat, at: kind.location, "expected kind VirtualService, found \(kind.value)")])
        }
        if let name = ForeignReader.value(root, "metadata").flatMap({ ForeignReader.value($0, "name") }), case .scalar(let scalar) = name {
            imported.name = ImportedPolicy.sanitizedName(scalar.value)
        }
        let spec = ForeignReader.value(root, "spec") ?? root
        // A single HTTP route's fields (what export writes): `retries`, `timeout`.
        let bareRoute = ForeignReader.value(spec, "http") == nil
            && (ForeignReader.value(root, "retries") != nil || ForeignReader.value(root, "timeout") != nil)
        guard let httpNode = bareRoute ? .sequence([root], root.location) : ForeignReader.value(spec, "http") else {
            throw InteropError([Diagnostic(.notThisFormat, at: spec.location, "expected a VirtualService with spec.http routes, found none")])
        }
        guard let routes = reader.list(httpNode, "spec.http"), !routes.isEmpty else {
            if reader.diagnostics.isEmpty { reader.error(.invalidValue, httpNode, "spec.http: expected at least one route") }
            throw InteropError(reader.diagnostics)
        }
        var chosen = routes[0]
        if let route {
            guard let match = routes.first(where: { ForeignReader.value($0, "name").flatMap { if case .scalar(let s) = $0 { s.value } else { nil } } == route }) else {
                throw InteropError([Diagnostic(.notThisFormat, at: httpNode.location, "no HTTP route named \(route)")])
            }
            chosen = match
        } else if routes.count > 1 {
            imported.warn("http", at: routes[1].location, "\(routes.count) HTTP routes; only the first is imported (choose one with --select NAME)")
            imported.comment("", "The VirtualService has \(routes.count) HTTP routes; this is the first.")
        }
        guard reader.mapping(chosen, "spec.http[]") != nil else { throw InteropError(reader.diagnostics) }

        var attempts = defaultAttempts
        var retryOn = defaultRetryOn
        let retries = ForeignReader.value(chosen, "retries")
        let at = retries.map { ForeignReader.keyLocation($0, "retryOn") ?? $0.location } ?? chosen.location
        if let retries, reader.mapping(retries, "retries") != nil {
            if let value = ForeignReader.value(retries, "attempts"), let number = reader.integer(value, "retries.attempts") {
                if number < 0 { reader.error(.invalidValue, value, "retries.attempts: must be >= 0, found \(number)") } else { attempts = min(number, 99) }
            } else if ForeignReader.value(retries, "attempts") == nil {
                imported.comment("attempts", "retries.attempts absent: Istio's default is 2.")
            }
            if let value = ForeignReader.value(retries, "retryOn"), let text = reader.string(value, "retries.retryOn") {
                retryOn = text
            } else if ForeignReader.value(retries, "retryOn") == nil {
                imported.comment("rules", "retries.retryOn absent: Istio's default \(defaultRetryOn).")
            }
            if let value = ForeignReader.value(retries, "perTryTimeout"), let text = reader.string(value, "retries.perTryTimeout") {
                if let duration = ForeignDuration.parseGo(text) {
                    if duration > .zero { imported.timeouts.perAttempt = GRPCImporter.roundedToPolicy(duration, key: "timeouts", imported: &imported) }
                } else {
                    reader.error(.invalidValue, value, "retries.perTryTimeout: expected a duration such as 2s or 250ms, found \"\(text)\"")
                }
            }
            if ForeignReader.value(retries, "retryRemoteLocalities") != nil {
                imported.comment("rules", "retryRemoteLocalities chooses where a retry goes, not whether; not represented.")
            }
        } else if retries == nil {
            imported.comment("attempts", "No retries block: Istio's default 2 retries on \(defaultRetryOn).")
        }
        imported.attempts = attempts + 1
        imported.comment("attempts", "attempts \(attempts) retries + the first attempt.")
        var conditions: [String] = []
        var codes: [Int] = []
        for token in RetryOnReader.split(retryOn) {
            if let code = Int(token), token.allSatisfy(\.isASCIIDigit) {
                if StatusPattern.validCodes.contains(code) { codes.append(code) } else {
                    imported.warn("retryOn", at: at, "status \(code) is outside 100-599; ignored")
                }
            } else {
                conditions.append(token)
            }
        }
        if !codes.isEmpty && !conditions.contains("retriable-status-codes") { conditions.append("retriable-status-codes") }
        RetryOnReader.apply(conditions, codes: codes, at: at, target: "Istio", imported: &imported)
        imported.backoff = Backoff(initial: IstioExporter.backoffBase, max: IstioExporter.backoffMax, multiplier: 2, jitter: .full)
        imported.comment("backoff", "Istio sets no backoff: Envoy's default 25ms base, 250ms max, full jitter.")
        imported.comment("retry_after", "Istio does not configure Envoy's rate-limited backoff: server delays are not read.")

        if let value = ForeignReader.value(chosen, "timeout"), let text = reader.string(value, "timeout") {
            if let duration = ForeignDuration.parseGo(text) {
                if duration > .zero {
                    imported.timeouts.total = GRPCImporter.roundedToPolicy(duration, key: "timeouts", imported: &imported)
                    imported.comment("timeouts", "The route's timeout covers every attempt.")
                }
            } else {
                reader.error(.invalidValue, value, "timeout: expected a duration such as 10s, found \"\(text)\"")
            }
        } else {
            imported.comment("timeouts", "No route timeout: Istio sets none by default.")
        }
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return imported
    }
}
