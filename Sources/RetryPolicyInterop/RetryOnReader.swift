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
        imported.retriedGRPC = Set(conditions.compactMap(EnvoyConditions.grpcStatus))
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
                let status = EnvoyConditions.grpcStatus(condition)?.name ?? condition
                lines.append("\(condition): a gRPC response whose grpc-status is \(status), as a grpc rule.")
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
        text.split(separator: ",").map { String($0.trimmingSpaces) }.filter { !$0.isEmpty }
    }
}
