/// A gRPC server's pushback (gRFC A6, "Pushback"): the
/// `grpc-retry-pushback-ms` metadata of a failed call.
///
/// A6 defines the value as an ASCII signed 32-bit integer of milliseconds
/// to wait before the retry; "if the value for pushback is negative or
/// unparseable, then it will be seen as the server asking the client not
/// to retry at all". A valid delay is a server-directed delay like
/// `Retry-After` and meets the policy's cap the same way.
package enum GRPCPushback: Hashable, Sendable {
    /// Retry after this delay (zero included).
    case retry(after: Duration)
    /// The server asks for no retry: a negative value, or one that is not
    /// a signed 32-bit integer (a fraction, a sign without digits, text,
    /// a number beyond 2,147,483,647, an empty value).
    case stop

    /// The pushback in `metadata`, the first `grpc-retry-pushback-ms`
    /// entry (names compared case-insensitively); `nil` when there is none.
    package init?(in metadata: ResponseHeaders) {
        guard let value = metadata[GRPCStatusCode.pushbackKey] else { return nil }
        self.init(value: value)
    }

    /// Reads one value; never traps, and reads at most the value's bytes.
    package init(value: String) {
        var utf8 = Substring(value).utf8[...]
        RetryAfterValue.trimWhitespace(&utf8)
        var negative = false
        if let first = utf8.first, first == 45 || first == 43 {  // '-' or '+'
            negative = first == 45
            utf8 = utf8.dropFirst()
        }
        // At most 10 digits fit an Int32; more (leading zeros aside) cannot.
        while utf8.first == 48, !utf8.dropFirst().isEmpty { utf8 = utf8.dropFirst() }
        guard utf8.count <= 10, let magnitude = RetryAfterValue.parseDigits(utf8),
            magnitude <= Int64(Int32.max) + (negative ? 1 : 0)
        else {
            self = .stop
            return
        }
        if negative && magnitude > 0 {
            self = .stop
            return
        }
        self = .retry(after: RetryAfterValue.delay(milliseconds: magnitude))
    }
}
