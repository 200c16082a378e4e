#if AsyncHTTPClient  // the trait; without it this module is empty
import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RetryPolicyCore
import RetryPolicyExecutor

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ErrorClassifier {
    /// Maps AsyncHTTPClient, SwiftNIO and NIOSSL errors to transport
    /// classes.
    ///
    /// SwiftNIO reports the same condition in several shapes depending on
    /// where it was detected (an errno from the socket, a channel state, a
    /// parser state, the TLS handler, the resolver), so the mapping
    /// recognises each error type and looks inside it. Errors it does not
    /// know are left to the next classifier.
    public static let asyncHTTPClient = ErrorClassifier { error in
        AsyncHTTPClientErrorMapping.transportFailure(for: error).map(AttemptOutcome.transport)
    }
}

/// The mapping tables of ``ErrorClassifier/asyncHTTPClient``, one per
/// error type, each matched by type (never by name or description).
enum AsyncHTTPClientErrorMapping {
    static func transportFailure(for error: any Error) -> TransportFailure? {
        switch error {
        case let error as HTTPClientError: map(error)
        case let error as NIOConnectionError: map(error)
        case let error as IOError: map(errno: error.errnoCode)
        case let error as ChannelError: map(error)
        case let error as HTTPParserError: map(error)
        case let error as NIOSSLError: map(error)
        // The TLS library's own errors, and NIOSSL's later additions
        // (host name validation, SNI): the session could not be set up.
        case is BoringSSLError, is NIOSSLExtraError: .tls
        case let error as SocketAddressError: map(error)
        // getaddrinfo answered that the name does not exist (or could not
        // be looked up).
        case is SocketAddressError.UnknownHost: .dns
        case is CancellationError: .cancelled
        default: nil
        }
    }

    /// AsyncHTTPClient's own errors: its timers, its connection state and
    /// its request validation.
    static func map(_ error: HTTPClientError) -> TransportFailure {
        switch error {
        // The client's own timers (connect, read, write, pool, proxies).
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
            .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return .timeout
        // A handshake that never completes is a TLS failure rather than a
        // slow server: retrying it rarely helps and policies want to tell
        // it apart.
        case .tlsHandshakeTimeout:
            return .tls
        // The connection closed before the response was complete
        // (`uncleanShutdown`: without TLS close_notify, so the end of the
        // body cannot be trusted).
        case .remoteConnectionClosed, .bodyLengthMismatch, .uncleanShutdown:
            return .connectionLost
        case .cancelled, .requestStreamCancelled:
            return .cancelled
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return .invalidURL
        default:
            // Errors with associated values cannot be matched by equality;
            // `shortDescription` is AsyncHTTPClient's label without them,
            // so comparing it with a sample's is a comparison of the case.
            switch error.shortDescription {
            case HTTPClientError.unsupportedScheme("").shortDescription:
                return .invalidURL
            // ALPN: the server and the client agreed on no protocol during
            // the TLS handshake.
            case HTTPClientError.serverOfferedUnsupportedApplicationProtocol("").shortDescription:
                return .tls
            default:
                // Proxy answers, redirect limits, a shut-down client,
                // invalid headers: not a transport class a policy retries.
                return .unknown
            }
        }
    }

    /// Happy Eyeballs' summary of a connection attempt: the two DNS
    /// lookups and one error per address tried.
    static func map(_ error: NIOConnectionError) -> TransportFailure {
        connectionFailure(
            dnsErrors: [error.dnsAError, error.dnsAAAAError].compactMap { $0 },
            connectionErrors: error.connectionErrors.map(\.error))
    }

    /// The class of a failed connection attempt.
    ///
    /// If some address was tried, the connection errors tell what
    /// happened (a failed AAAA lookup beside a refused IPv4 connection is a
    /// refused connection, not a DNS problem). If no address was tried,
    /// resolution failed or found nothing: `dns`.
    static func connectionFailure(dnsErrors: [any Error], connectionErrors: [any Error]) -> TransportFailure {
        let classes = connectionErrors.map { transportFailure(for: $0) ?? .unknown }
        guard !classes.isEmpty else { return .dns }
        return connectionFailurePrecedence.first(where: classes.contains) ?? classes[0]
    }

    /// When addresses fail differently (`localhost` refuses on IPv4 while
    /// IPv6 has no route), the most telling class wins: a host that
    /// answered "refused" says more than a timeout, and a timeout more
    /// than a family the machine has no route for.
    static let connectionFailurePrecedence: [TransportFailure] = [
        .connectionRefused, .timeout, .connectionLost, .offline, .dns,
    ]

    /// Socket errors by errno.
    static func map(errno code: Int32) -> TransportFailure {
        switch code {
        // Nothing listens there: the host answered with a reset.
        case ECONNREFUSED: .connectionRefused
        // An established connection was reset or closed under a write.
        case ECONNRESET, EPIPE, ECONNABORTED: .connectionLost
        // The machine has no route to the network or the host (the
        // interface is down, no IPv6, airplane mode).
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN: .offline
        // The kernel's own connect or keep-alive timeout.
        case ETIMEDOUT: .timeout
        default: .unknown
        }
    }

    /// Channel states: what the channel saw of the connection.
    static func map(_ error: ChannelError) -> TransportFailure {
        switch error {
        case .connectTimeout: .timeout
        case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: .connectionLost
        case .writeHostUnreachable: .offline
        default: .unknown
        }
    }

    /// The HTTP/1 parser: an end of stream inside a message is a dropped
    /// connection; anything else is a response it could not read.
    static func map(_ error: HTTPParserError) -> TransportFailure {
        switch error {
        case .invalidEOFState, .closedConnection: .connectionLost
        default: .decoding
        }
    }

    /// NIOSSL's handler errors.
    static func map(_ error: NIOSSLError) -> TransportFailure {
        switch error {
        // The session never came up: wrong protocol on the other side, a
        // certificate that does not verify, a peer that closed during the
        // handshake. Either way no request was sent.
        case .handshakeFailed:
            return .tls
        // The session was up and the connection went away without TLS
        // close_notify, or while it was being shut down.
        case .uncleanShutdown, .shutdownFailed, .readInInvalidTLSState, .writeDuringTLSShutdown:
            return .connectionLost
        // Certificate validation and TLS configuration (key and
        // certificate files): a TLS problem that retrying will not fix.
        case .noSuchFilesystemObject, .failedToLoadCertificate, .failedToLoadPrivateKey, .cannotMatchULabel,
            .noCertificateToValidate, .unableToValidateCertificate, .cannotFindPeerIP:
            return .tls
        default:
            // Only the deprecated `unableToAllocateBoringSSLObject`.
            return .tls
        }
    }

    /// Address errors outside Happy Eyeballs.
    static func map(_ error: SocketAddressError) -> TransportFailure {
        switch error {
        // A UNIX socket path or an IP literal the URL carried.
        case .unixDomainSocketPathTooLong, .failedToParseIPString: .invalidURL
        // `.unknown(host:port:)` (deprecated; resolution failed) and
        // `.unsupported` (the resolver returned an address family NIO
        // cannot use).
        default: .dns
        }
    }
}
#endif
