import RetryPolicyCore

/// Whether a recording can hold the server-delay headers a policy reads
/// (`Retry-After`, `retry-after-ms`...): HAR and JSONL keep response
/// headers; Envoy's default access log has no header field; an nginx log
/// has one only when its `log_format` logs `$sent_http_NAME` or
/// `$upstream_http_NAME`, which neither known format does.
extension TrafficFormat {
    /// Whether a recording in this format can carry one of `headers`
    /// (lower-case names); `nginxFormat` is the `--nginx-log-format` given.
    public func carries(anyOf headers: Set<String>, nginxFormat: NginxLogFormat?) -> Bool {
        switch self {
        case .har, .jsonl: true
        case .envoy: false
        case .nginx: (nginxFormat.map { [$0] } ?? NginxLogFormat.known).contains { !$0.loggedHeaders.isDisjoint(with: headers) }
        }
    }
}

extension NginxLogFormat {
    /// The response headers the format logs, as lower-case header names
    /// (`$sent_http_retry_after` is `retry-after`).
    var loggedHeaders: Set<String> {
        var names: Set<String> = []
        for case .variable(let name, .header?) in tokens {
            let header = name.hasPrefix("sent_http_") ? name.dropFirst("sent_http_".count) : name.dropFirst("upstream_http_".count)
            names.insert(Substring(header).replacingUnderscores)
        }
        return names
    }
}

extension Policy {
    /// Whether some rule of the policy believes a server's delay header.
    var honoursServerDelays: Bool {
        !retryAfter.headers.isEmpty && (retryAfter.honor || rules.contains { $0.honorRetryAfter == true })
    }
}
