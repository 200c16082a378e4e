import AsyncHTTPClient
import NIOCore
import NIOHTTP1
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
    /// Maps AsyncHTTPClient and SwiftNIO errors to transport classes.
    ///
    /// SwiftNIO reports the same condition in several shapes depending on
    /// where it was detected (an errno from the socket, a channel state, a
    /// parser state), so the mapping looks at each.
    public static let asyncHTTPClient = ErrorClassifier { error in
        AsyncHTTPClientErrorMapping.transportFailure(for: error).map(AttemptOutcome.transport)
    }
}

enum AsyncHTTPClientErrorMapping {
    static func transportFailure(for error: any Error) -> TransportFailure? {
        if let error = error as? HTTPClientError { return map(error) }
        if let error = error as? IOError { return map(errno: error.errnoCode) }
        if let error = error as? ChannelError { return map(error) }
        if let error = error as? HTTPParserError {
            switch error {
            case .invalidEOFState, .closedConnection: return .connectionLost
            default: return .decoding
            }
        }
        if error is CancellationError { return .cancelled }
        return byTypeName(error)
    }

    static func map(_ error: HTTPClientError) -> TransportFailure {
        switch error {
        case .connectTimeout, .readTimeout, .writeTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
            .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return .timeout
        case .tlsHandshakeTimeout:
            return .tls
        case .remoteConnectionClosed, .bodyLengthMismatch:
            return .connectionLost
        case .cancelled, .requestStreamCancelled:
            return .cancelled
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath:
            return .invalidURL
        default:
            if String(describing: error).hasPrefix("HTTPClientError.unsupportedScheme") { return .invalidURL }
            return .unknown
        }
    }

    static func map(errno code: Int32) -> TransportFailure {
        switch code {
        case ECONNREFUSED: .connectionRefused
        case ECONNRESET, EPIPE, ECONNABORTED: .connectionLost
        case ENETUNREACH, EHOSTUNREACH, ENETDOWN: .offline
        case ETIMEDOUT: .timeout
        default: .unknown
        }
    }

    static func map(_ error: ChannelError) -> TransportFailure {
        switch error {
        case .connectTimeout: .timeout
        case .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed, .eof: .connectionLost
        case .writeHostUnreachable: .offline
        default: .unknown
        }
    }

    /// Errors from modules this target does not link (NIOPosix's
    /// connection errors, NIOSSL), recognised by type and inspected by
    /// reflection rather than adding dependencies for a type check.
    static func byTypeName(_ error: any Error) -> TransportFailure? {
        let typeName = String(reflecting: type(of: error))
        if typeName.contains("NIOSSL") || typeName.contains("BoringSSL") { return .tls }
        if typeName.hasSuffix("NIOConnectionError") {
            // One failure per address tried; the most telling class wins.
            let mirror = Mirror(reflecting: error)
            var classes: [TransportFailure] = []
            for child in mirror.children {
                if child.label == "connectionErrors", let failures = child.value as? [Any] {
                    for failure in failures {
                        for part in Mirror(reflecting: failure).children where part.label == "error" {
                            if let inner = part.value as? any Error, let mapped = transportFailure(for: inner) {
                                classes.append(mapped)
                            }
                        }
                    }
                }
            }
            if classes.contains(.connectionRefused) { return .connectionRefused }
            if let first = classes.first { return first }
            return .dns
        }
        if typeName.hasSuffix("SocketAddressError") || typeName.contains("GetaddrinfoResolver") { return .dns }
        return nil
    }
}
