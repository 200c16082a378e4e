/// The class of a failure that happened before a complete HTTP response
/// arrived.
///
/// Adapters (URLSession, AsyncHTTPClient) map their own error types into
/// these classes so that one policy speaks about every client the same way.
public enum TransportFailure: String, CaseIterable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The attempt ran past its per-attempt timeout.
    case timeout
    /// An established connection dropped before the response completed.
    case connectionLost = "connection_lost"
    /// The device has no network at all.
    case offline
    /// The host name could not be resolved.
    case dns
    /// TLS handshake or certificate validation failed.
    case tls
    /// Nothing listens on the port, or the connection was actively refused.
    case connectionRefused = "connection_refused"
    /// The caller cancelled the request. Never retried.
    case cancelled
    /// The request could not even be built.
    case invalidURL = "invalid_url"
    /// The response arrived but its body could not be decoded.
    case decoding
    /// Anything an adapter cannot classify.
    case unknown

    public var description: String { rawValue }

    public static func < (lhs: TransportFailure, rhs: TransportFailure) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
