/// The attribute names of the spans an executor makes: OpenTelemetry's
/// HTTP semantic conventions where one exists, `retry_policy.*` for the
/// policy's own.
enum SpanNames {
    static let method = "http.request.method"
    static let resendCount = "http.request.resend_count"
    static let statusCode = "http.response.status_code"
    static let errorType = "error.type"
    static let serverAddress = "server.address"
    static let serverPort = "server.port"
    static let urlFull = "url.full"

    static let policy = "retry_policy.policy"
    static let endpoint = "retry_policy.endpoint"
    static let attempt = "retry_policy.attempt"
    static let attempts = "retry_policy.attempts"
    static let decision = "retry_policy.decision"
    static let outcome = "retry_policy.outcome"
    static let delay = "retry_policy.delay"
    static let reason = "retry_policy.reason"
    static let rule = "retry_policy.rule"
    static let serverDirected = "retry_policy.server_directed"
    static let refreshCredentials = "retry_policy.refresh_credentials"
    static let stopReason = "retry_policy.stop_reason"
    static let breakerReason = "retry_policy.breaker.reason"
    static let breakDuration = "retry_policy.breaker.break"
}
