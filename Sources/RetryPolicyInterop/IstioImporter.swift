import RetryPolicyCore
import RetryPolicyYAML

/// One Istio VirtualService HTTP route's `retries` and `timeout` to a
/// policy.
enum IstioImporter {
    /// Istio's defaults for a route without `retries` (pilot's
    /// `DefaultPolicy`: two retries on these conditions and status 503).
    static let defaultAttempts = 2
    static let defaultRetryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"
    static let defaultStatusCodes = [503]

    /// The fields of networking.istio.io HTTPRetry. Istio's validation
    /// refuses others.
    static let retryFields: Set<String> = [
        "attempts", "perTryTimeout", "retryOn", "retryRemoteLocalities", "retryIgnorePreviousHosts", "backoff",
    ]

    static func importRoute(_ route: YAMLNode, name: String, describedAs title: String, budget: IstioDestinationRule? = nil, path: String) throws(InteropError) -> ImportedPolicy {
        var reader = ForeignReader(file: path)
        var imported = ImportedPolicy(name: name, source: path, format: .istio, attempts: 1, backoff: .immediate)
        imported.comment("", title)
        var attempts = defaultAttempts
        var retryOn = defaultRetryOn
        var codes: [Int] = defaultStatusCodes
        var base = IstioExporter.backoffBase
        var baseAt = route.location
        let retries = ForeignReader.value(route, "retries")
        let at = retries.map { ForeignReader.keyLocation($0, "retryOn") ?? $0.location } ?? route.location
        if let retries, reader.mapping(retries, "retries") != nil {
            for (key, _) in ForeignReader.entries(retries) where !retryFields.contains(key.value) {
                reader.error(.invalidValue, at: key.location,
                             "retries: Istio refuses the unknown field \(key.value); HTTPRetry has \(retryFields.sorted().joined(separator: ", "))"
                                + (key.value == "retriableStatusCodes" ? " (list status codes in retryOn: \"retriable-status-codes,503\")" : ""))
            }
            if let value = ForeignReader.value(retries, "attempts"), let number = reader.integer(value, "retries.attempts") {
                if number < 0 {
                    reader.error(.invalidValue, value, "retries.attempts: must be >= 0, found \(number)")
                } else if number > 99 {
                    imported.warn("attempts", at: value.location, "the policy format allows 100 attempts; \(number) retries imported as 99")
                    attempts = 99
                } else {
                    attempts = number
                }
            } else if ForeignReader.value(retries, "attempts") == nil {
                imported.comment("attempts", "retries.attempts absent: Istio's default is 2.")
            }
            if let value = ForeignReader.value(retries, "retryOn"), let text = reader.string(value, "retries.retryOn") {
                retryOn = text
                codes = []
            } else if ForeignReader.value(retries, "retryOn") == nil {
                imported.comment("rules", "retries.retryOn absent: Istio's default \(defaultRetryOn) with status 503.")
            }
            if let value = ForeignReader.value(retries, "perTryTimeout"), let duration = goDuration(value, "retries.perTryTimeout", reader: &reader) {
                if duration > .zero {
                    imported.timeouts.perAttempt = imported.policyDuration(duration, key: "timeouts", what: "perTryTimeout", at: value.location)
                }
            }
            if let value = ForeignReader.value(retries, "backoff"), let duration = goDuration(value, "retries.backoff", reader: &reader) {
                if duration > .zero {
                    base = max(duration, .milliseconds(1))
                    baseAt = value.location
                }
            }
            if ForeignReader.value(retries, "retryRemoteLocalities") != nil {
                imported.comment("rules", "retryRemoteLocalities chooses where a retry goes, not whether; not represented.")
            }
        } else if retries == nil {
            imported.comment("attempts", "No retries block: Istio's default 2 retries on \(defaultRetryOn) with status 503.")
        }
        imported.attempts = attempts + 1
        imported.comment("attempts", "attempts \(attempts) retries + the first attempt.")
        var conditions: [String] = []
        for token in RetryOnReader.split(retryOn) {
            if token.allSatisfy(\.isASCIIDigit), let code = Int(token.prefix(9)) {
                if StatusPattern.validCodes.contains(code) { codes.append(code) } else {
                    imported.warn("retryOn", at: at, "status \(token) is outside 100-599; ignored")
                }
            } else {
                conditions.append(token)
            }
        }
        if !codes.isEmpty && !conditions.contains("retriable-status-codes") { conditions.append("retriable-status-codes") }
        RetryOnReader.apply(conditions, codes: codes, at: at, target: "Istio", imported: &imported)
        let initial = imported.policyDuration(base, key: "backoff", what: "retries.backoff", at: baseAt)
        let maximum = imported.policyDuration(base * 10, key: "backoff", what: "retries.backoff", at: baseAt)
        imported.backoff = Backoff(initial: initial, max: maximum, multiplier: 2, jitter: .full)
        if base == IstioExporter.backoffBase {
            imported.comment("backoff", "Istio sets no backoff: Envoy's default 25ms base, 250ms max, full jitter.")
        } else {
            imported.comment("backoff", "retries.backoff is Envoy's base_interval; max_interval is 10 x base, full jitter.")
        }
        imported.comment("retry_after", "Istio does not configure Envoy's rate-limited backoff: server delays are not read.")

        if let value = ForeignReader.value(route, "timeout") {
            if let duration = goDuration(value, "timeout", reader: &reader), duration > .zero {
                imported.timeouts.total = imported.policyDuration(duration, key: "timeouts", what: "timeout", at: value.location)
                imported.comment("timeouts", "The route's timeout covers every attempt.")
            }
        } else {
            imported.comment("timeouts", "No route timeout: Istio sets none by default.")
        }
        budget?.apply(reader: &reader, imported: &imported)
        if !reader.diagnostics.isEmpty { throw InteropError(reader.diagnostics) }
        return imported
    }

    /// A duration as Istio writes one (`2s`, `250ms`, `1m30s`).
    static func goDuration(_ node: YAMLNode, _ what: String, reader: inout ForeignReader) -> Duration? {
        guard let text = reader.string(node, what) else { return nil }
        if let duration = ForeignDuration.parseGo(text) { return duration }
        reader.error(.invalidValue, node, "\(what): expected a duration such as 2s or 250ms, found \"\(String(text.prefix(40)))\"")
        return nil
    }
}
