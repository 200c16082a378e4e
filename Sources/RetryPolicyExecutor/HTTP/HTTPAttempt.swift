import RetryPolicyCore

/// What an HTTP adapter's send closure is given for one attempt: the
/// executor's context and the trace-context headers (W3C `traceparent`,
/// `tracestate`) the attempt must carry to the server.
public struct HTTPAttempt: Sendable {
    public var context: AttemptContext
    /// Set each of them on the request, replacing a header of the same
    /// name; empty when the executor makes no attempt spans.
    public var traceHeaders: [(name: String, value: String)]

    public init(context: AttemptContext, traceHeaders: [(name: String, value: String)] = []) {
        self.context = context
        self.traceHeaders = traceHeaders
    }
}
