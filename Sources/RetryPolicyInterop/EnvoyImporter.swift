import RetryPolicyCore
import RetryPolicyYAML

/// Envoy route configuration: a RouteConfiguration, a virtual host, a
/// route, a RouteAction, or a bare RetryPolicy.
enum EnvoyImporter {
    /// Envoy's documented defaults (config.route.v3.RetryPolicy,
    /// config.route.v3.RouteAction).
    static let defaultNumRetries = 1
    static let defaultBaseInterval: Duration = .milliseconds(25)
    static let defaultRouteTimeout: Duration = .seconds(15)

    /// The proto fields of config.route.v3.RetryPolicy. Envoy refuses a
    /// configuration with any other field, such as the v1 API's
    /// `per_try_timeout_ms`.
    static let retryPolicyFields: Set<String> = [
        "retry_on", "num_retries", "per_try_timeout", "per_try_idle_timeout", "retry_priority", "retry_host_predicate",
        "retry_options_predicates", "host_selection_retry_max_attempts", "retriable_status_codes", "retry_back_off",
        "rate_limited_retry_back_off", "retriable_headers", "retriable_request_headers",
    ]

    /// One retry policy where Envoy applies it: a route's RouteAction, a
    /// virtual host (for its routes without their own), or a bare
    /// RetryPolicy.
    /// `document`, the whole file, is searched for the cluster a route
    /// sends to, whose retry budget becomes the policy's.
    static func importPlace(
        _ place: EnvoyRetryPlace, path: String, name: String, document: YAMLNode? = nil
    ) throws(InteropError) -> ImportedPolicy {
        var reader = ForeignReader(file: path)
        var imported = ImportedPolicy(name: name, source: path, format: .envoy, attempts: 1, backoff: .immediate)
        switch place.kind {
        case .bare:
            imported.comment("timeouts", "A bare retry_policy: the route's timeout is not known; Envoy's default is 15s.")
        case .virtualHost:
            imported.comment("", "The retry_policy of virtual host \(place.name): it applies to the host's routes that have none of their own.")
        case .route:
            if place.isNamed { imported.comment("", "The retry_policy of route \(place.name).") }
        }
        guard reader.mapping(place.retryPolicy, "retry_policy") != nil else { throw InteropError(reader.diagnostics) }
        for key in ForeignReader.protoKeys(place.retryPolicy) where !retryPolicyFields.contains(key.name) {
            let hint = key.name == "per_try_timeout_ms" ? " (the v1 API's; v3 writes per_try_timeout: 2s)" : ""
            reader.error(.invalidValue, at: key.location, "retry_policy: Envoy refuses the unknown field \(key.name)\(hint)")
        }
        readRetryPolicy(place.retryPolicy, reader: &reader, imported: &imported, target: "Envoy")

        if place.kind == .route {
            if let node = ForeignReader.field(place.holder, "timeout"), let timeout = reader.protoDuration(node, "timeout") {
                if timeout > .zero {
                    imported.timeouts.total = imported.policyDuration(timeout, key: "timeouts", what: "timeout", at: node.location)
                    imported.comment("timeouts", "The route's timeout covers every attempt.")
                } else {
                    imported.comment("timeouts", "The route's timeout is 0s: no deadline.")
                }
            } else {
                imported.timeouts.total = defaultRouteTimeout
                imported.comment("timeouts", "No route timeout: Envoy's default 15s covers every attempt.")
            }
        } else if place.kind == .virtualHost {
            imported.comment("timeouts", "A virtual host's retry_policy: each route's timeout applies (Envoy's default 15s).")
        }
        if place.kind == .route, let document, let cluster = ForeignReader.field(place.holder, "cluster")?.scalarText,
            let budget = EnvoyRetryBudget.find(cluster: cluster, in: document)
        {
            EnvoyRetryBudget.read(budget, cluster: cluster, reader: &reader, imported: &imported)
        }
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return imported
    }

    /// A cluster in a file without routes: its DEFAULT-priority
    /// `retry_budget` becomes the policy's budget, and the retries are a
    /// route's without `retry_policy`: none, which a warning says, with
    /// what to add.
    static func importCluster(_ holder: EnvoyRetryBudget.Holder, path: String, name: String) throws(InteropError) -> ImportedPolicy {
        var reader = ForeignReader(file: path)
        let backoff = Backoff(initial: defaultBaseInterval, max: defaultBaseInterval * 10, multiplier: 2, jitter: .full)
        var imported = ImportedPolicy(name: name, source: path, format: .envoy, attempts: 1, backoff: backoff)
        let clusterName = DisplayText.escaped(holder.name)
        imported.comment("", "The retry budget of cluster \(clusterName); the file holds no route.")
        imported.comment("attempts", "No route retry_policy: Envoy makes no retries.")
        RetryOnReader.apply([], codes: [], at: holder.cluster.location, target: "Envoy", imported: &imported)
        imported.comment("backoff", "No retry_back_off: Envoy's default base_interval 25ms, max_interval 10 x base, full jitter.")
        imported.comment("timeouts", "No route: its timeout is not known; Envoy's default is 15s.")
        EnvoyRetryBudget.read(holder.budget, cluster: holder.name, reader: &reader, imported: &imported)
        imported.warn("retry_policy", at: holder.cluster.location,
            "cluster \(clusterName) holds a retry budget but the file has no route: a route without retry_policy makes no retries, so the policy makes 1 attempt; import the route's retry_policy beside the cluster (a bootstrap's static_resources holds both), or add attempts and rules (such as attempts: 3 with a rule retrying 5xx)")
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return imported
    }

    static func readRetryPolicy(_ node: YAMLNode, reader: inout ForeignReader, imported: inout ImportedPolicy, target: String) {
        var retries = defaultNumRetries
        if let value = ForeignReader.field(node, "num_retries") {
            let number: Int?
            if case .mapping = value, let inner = ForeignReader.field(value, "value") {
                number = reader.integer(inner, "num_retries.value", lenient: true)
            } else {
                number = reader.integer(value, "num_retries", lenient: true)
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
            imported.warn("num_retries", at: ForeignReader.fieldKeyLocation(node, "num_retries") ?? node.location, "the policy format allows 100 attempts; num_retries \(retries) imported as 99")
            retries = 99
        }
        imported.attempts = retries + 1
        imported.comment("attempts", "num_retries \(retries) + the first attempt.")

        var codes: [Int] = []
        if let value = ForeignReader.field(node, "retriable_status_codes"), let items = reader.list(value, "retriable_status_codes") {
            for (index, item) in items.enumerated() {
                if let code = reader.integer(item, "retriable_status_codes[\(index)]") {
                    if StatusPattern.validCodes.contains(code) { codes.append(code) } else {
                        imported.warn("retriable_status_codes", at: item.location, "status \(code) is outside 100-599; ignored")
                    }
                }
            }
        }
        var conditions: [String] = []
        if let value = ForeignReader.field(node, "retry_on"), let text = reader.string(value, "retry_on") {
            conditions = RetryOnReader.split(text)
        }
        let conditionsAt = ForeignReader.fieldKeyLocation(node, "retry_on") ?? node.location
        if !codes.isEmpty && !conditions.contains("retriable-status-codes") {
            imported.comment("rules", "retriable_status_codes is listed but retry_on lacks retriable-status-codes, so Envoy ignores it.")
            codes = []
        }
        RetryOnReader.apply(conditions, codes: codes, at: conditionsAt, target: target, imported: &imported)

        if let value = ForeignReader.field(node, "per_try_timeout"), let timeout = reader.protoDuration(value, "per_try_timeout"), timeout > .zero {
            imported.timeouts.perAttempt = imported.policyDuration(timeout, key: "timeouts", what: "per_try_timeout", at: value.location)
        }

        var base = defaultBaseInterval
        var baseAt = node.location
        var maximum: Duration?
        var maximumAt = node.location
        if let value = ForeignReader.field(node, "retry_back_off"), reader.mapping(value, "retry_back_off") != nil {
            if let baseNode = ForeignReader.field(value, "base_interval") {
                if let parsed = reader.protoDuration(baseNode, "retry_back_off.base_interval") {
                    if parsed <= .zero {
                        reader.error(.invalidValue, baseNode, "retry_back_off.base_interval: must be greater than zero")
                    } else {
                        base = max(parsed, .milliseconds(1))
                        baseAt = baseNode.location
                    }
                }
            } else {
                reader.error(.missingField, value, "retry_back_off: base_interval is required")
            }
            if let maxNode = ForeignReader.field(value, "max_interval"), let parsed = reader.protoDuration(maxNode, "retry_back_off.max_interval") {
                if parsed < base {
                    reader.error(.invalidValue, maxNode, "retry_back_off.max_interval: must be greater than or equal to base_interval")
                } else {
                    maximum = parsed
                    maximumAt = maxNode.location
                }
            }
            imported.comment("backoff", "retry_back_off: a random wait in [0, min(base_interval x 2^(n-1), max_interval)) (full jitter).")
        } else {
            imported.comment("backoff", "No retry_back_off: Envoy's default base_interval 25ms, max_interval 10 x base, full jitter.")
        }
        if maximum == nil && ForeignReader.field(node, "retry_back_off") != nil {
            imported.comment("backoff", "max_interval absent: 10 x base_interval.")
        }
        let roundedBase = imported.policyDuration(base, key: "backoff", what: "retry_back_off.base_interval", at: baseAt)
        let roundedMax = imported.policyDuration(maximum ?? base * 10, key: "backoff", what: "retry_back_off.max_interval", at: maximumAt)
        imported.backoff = Backoff(initial: roundedBase, max: roundedMax, multiplier: 2, jitter: .full)

        if let value = ForeignReader.field(node, "rate_limited_retry_back_off"), reader.mapping(value, "rate_limited_retry_back_off") != nil {
            var headers: [RetryAfterPolicy.Header] = []
            if let list = ForeignReader.field(value, "reset_headers"), let items = reader.list(list, "rate_limited_retry_back_off.reset_headers") {
                for (index, item) in items.enumerated() {
                    guard reader.mapping(item, "reset_headers[\(index)]") != nil else { continue }
                    guard let nameNode = ForeignReader.field(item, "name"), let name = reader.string(nameNode, "reset_headers[\(index)].name") else {
                        if ForeignReader.field(item, "name") == nil { reader.error(.missingField, item, "reset_headers[\(index)]: name is required") }
                        continue
                    }
                    // Envoy refuses a header name that is not a token, as a policy does.
                    guard HTTPToken.isValid(name) else {
                        reader.error(.invalidValue, nameNode, "reset_headers[\(index)].name: expected a header name (letters, digits and !#$%&'*+-.^_`|~), found \(InteropValue.quoted(String(name.prefix(40))))")
                        continue
                    }
                    var format = RetryAfterPolicy.Header.Format.seconds
                    if let formatNode = ForeignReader.field(item, "format"), let text = reader.string(formatNode, "reset_headers[\(index)].format") {
                        switch text {
                        case "SECONDS": format = .seconds
                        case "UNIX_TIMESTAMP": format = .unixSeconds
                        default: reader.error(.invalidValue, formatNode, "reset_headers[\(index)].format: expected SECONDS or UNIX_TIMESTAMP, found \"\(text)\"")
                        }
                    }
                    headers.append(RetryAfterPolicy.Header(name: name, format: format))
                }
            } else if ForeignReader.field(value, "reset_headers") == nil {
                reader.error(.missingField, value, "rate_limited_retry_back_off: reset_headers is required")
            }
            var cap = EnvoyExporter.defaultRateLimitedMaxInterval
            var capAt = value.location
            if let maxNode = ForeignReader.field(value, "max_interval"), let parsed = reader.protoDuration(maxNode, "rate_limited_retry_back_off.max_interval") {
                cap = parsed
                capAt = maxNode.location
            } else {
                imported.comment("retry_after", "max_interval absent: Envoy's default 300s.")
            }
            if !headers.isEmpty {
                imported.retryAfter = RetryAfterPolicy(honor: true, cap: imported.policyDuration(cap, key: "retry_after", what: "rate_limited_retry_back_off.max_interval", at: capAt), aboveCap: .ignore, combine: .server, headers: headers)
                imported.comment("retry_after", "rate_limited_retry_back_off: a delay above max_interval is discarded and the backoff used (above_cap: ignore).")
                imported.warn("rate_limited_retry_back_off", at: value.location,
                              "Envoy waits a random time between the server's delay and 1.5 times it; imported as exactly the server's delay")
            }
        } else {
            imported.comment("retry_after", "No rate_limited_retry_back_off: Envoy does not read server delays.")
        }
        for key in ["retriable_headers", "retriable_request_headers", "retry_host_predicate", "retry_priority", "retry_options_predicates"] {
            if let value = ForeignReader.field(node, key) {
                imported.warn(key, at: value.location, "\(key) has no policy equivalent; not imported")
            }
        }
    }
}
