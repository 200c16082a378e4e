#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import RetryPolicyCore
import RetryPolicyExecutor

extension ErrorClassifier {
    /// Maps `URLError` codes to transport classes, as the seed app's
    /// networking layer distinguishes them (timeouts and lost connections
    /// are transient; a bad URL or TLS failure is not).
    ///
    /// On Linux and Windows (FoundationNetworking), some failures arrive
    /// as `URLError.unknown` (or an empty reply as `.badServerResponse`)
    /// with only libcurl's message to tell them apart; see
    /// `URLSessionErrorMapping.libcurlFailure(code:message:)`.
    public static let urlSession = urlSession(overriding: [:])

    /// ``urlSession`` with some `URLError` codes read differently: each
    /// entry of `overrides` replaces the standard class of its code (and
    /// the reading of libcurl's message for it). An app whose server
    /// answers `.resourceUnavailable` for a transient condition maps it to
    /// `.transport(.connectionLost)`, or to a condition its policy
    /// declares.
    ///
    /// ```swift
    /// let classifier = ErrorClassifier.urlSession(overriding: [.resourceUnavailable: .transport(.connectionLost)])
    /// ```
    public static func urlSession(overriding overrides: [URLError.Code: AttemptOutcome]) -> ErrorClassifier {
        ErrorClassifier { error in
            guard let error = error as? URLError else { return nil }
            if let outcome = overrides[error.code] { return outcome }
            return .transport(URLSessionErrorMapping.transportFailure(for: error))
        }
    }
}

enum URLSessionErrorMapping {
    static func transportFailure(for error: URLError) -> TransportFailure {
        #if canImport(FoundationNetworking)
        if let message = error.userInfo[NSLocalizedDescriptionKey] as? String,
            let failure = libcurlFailure(code: error.code, message: message)
        {
            return failure
        }
        #endif
        return transportFailure(for: error.code)
    }

    /// The class of a FoundationNetworking failure whose `URLError` code
    /// says less than libcurl knew, read from libcurl's message.
    ///
    /// FoundationNetworking runs requests on libcurl and turns a failed
    /// transfer's `CURLcode` into a `URLError` code for only a few codes
    /// (refused, unresolved host, timed out, reset, bad URL, empty reply);
    /// every other code becomes `.unknown` (-1) and the `CURLcode` itself
    /// is dropped. What remains is the message it puts in
    /// `NSLocalizedDescriptionKey` (libcurl's error buffer, or
    /// `curl_easy_strerror` when that is empty); the `NSUnderlyingError`
    /// it attaches is an error with the same code and message. So for
    /// these cases the message is the only signal.
    ///
    /// Only libcurl's fixed message prefixes are matched, only for the
    /// codes below, and only on FoundationNetworking (Apple platforms
    /// report these failures with their own codes):
    ///
    /// | code | libcurl result | message starts with | class |
    /// |---|---|---|---|
    /// | `.unknown` | `CURLE_PARTIAL_FILE` (18) | `transfer closed with ` (body shorter than announced, or a chunked body cut off), `Transferred a partial file` | `connection_lost` |
    /// | `.unknown` | `CURLE_SSL_CONNECT_ERROR` (35) | `OpenSSL/` (`OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number`), `OpenSSL SSL_connect: ` (connection broke during the handshake), `SSL connect error` | `tls` |
    /// | `.unknown` | `CURLE_PEER_FAILED_VERIFICATION` (60) | `SSL certificate problem: ` (untrusted, expired, self-signed), `SSL: ` (host name mismatch), `SSL peer certificate or SSH remote key was not OK` | `tls` |
    /// | `.badServerResponse` | `CURLE_GOT_NOTHING` (52) | `Empty reply from server`, `Server returned nothing` | `connection_lost` |
    ///
    /// The last row is an empty reply: the connection closed before any
    /// byte of a response, which Apple platforms report as
    /// `.networkConnectionLost` and AsyncHTTPClient as a closed
    /// connection; left as `.badServerResponse` it would read as a
    /// malformed response. Anything else keeps its code's class.
    static func libcurlFailure(code: URLError.Code, message: String) -> TransportFailure? {
        switch code {
        case .unknown:
            if libcurlCutOffPrefixes.contains(where: message.hasPrefix) { return .connectionLost }
            if libcurlTLSPrefixes.contains(where: message.hasPrefix) { return .tls }
            return nil
        case .badServerResponse:
            return libcurlEmptyReplyPrefixes.contains(where: message.hasPrefix) ? .connectionLost : nil
        default:
            return nil
        }
    }

    static let libcurlCutOffPrefixes = ["transfer closed with ", "Transferred a partial file"]
    static let libcurlTLSPrefixes = [
        "OpenSSL/", "OpenSSL SSL_connect: ", "SSL connect error",
        "SSL certificate problem: ", "SSL: ", "SSL peer certificate or SSH remote key was not OK",
    ]
    static let libcurlEmptyReplyPrefixes = ["Empty reply from server", "Server returned nothing"]

    /// `URLError` codes, as Apple's URL Loading System and
    /// FoundationNetworking report them.
    static func transportFailure(for code: URLError.Code) -> TransportFailure {
        switch code {
        case .timedOut:
            return .timeout
        // Both Apple platforms and FoundationNetworking (for ECONNREFUSED)
        // report a refused connection with this code.
        case .cannotConnectToHost:
            return .connectionRefused
        case .cannotFindHost, .dnsLookupFailed:
            return .dns
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return .tls
        case .networkConnectionLost:
            return .connectionLost
        // No network at all, or none the device may use right now.
        case .notConnectedToInternet, .internationalRoamingOff, .callIsActive, .dataNotAllowed:
            return .offline
        case .cancelled:
            return .cancelled
        case .badURL, .unsupportedURL:
            return .invalidURL
        // The response arrived but could not be read. (FoundationNetworking's
        // empty reply also has `badServerResponse`; see above.)
        case .cannotDecodeRawData, .cannotDecodeContentData, .cannotParseResponse, .badServerResponse:
            return .decoding
        default:
            return .unknown
        }
    }
}
