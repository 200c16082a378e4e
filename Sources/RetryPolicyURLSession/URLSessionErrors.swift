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
    /// as `URLError.unknown` with only libcurl's message to tell them
    /// apart; see ``URLSessionErrorMapping/libcurlFailure(message:)``.
    public static let urlSession = ErrorClassifier { error in
        guard let error = error as? URLError else { return nil }
        return .transport(URLSessionErrorMapping.transportFailure(for: error))
    }
}

enum URLSessionErrorMapping {
    static func transportFailure(for error: URLError) -> TransportFailure {
        #if canImport(FoundationNetworking)
        if error.code == .unknown, let message = error.userInfo[NSLocalizedDescriptionKey] as? String,
            let failure = libcurlFailure(message: message)
        {
            return failure
        }
        #endif
        return transportFailure(for: error.code)
    }

    /// The class of a FoundationNetworking failure reported as
    /// `URLError.unknown` (-1), read from libcurl's message.
    ///
    /// FoundationNetworking runs requests on libcurl and turns a failed
    /// transfer's `CURLcode` into a `URLError` code for only a few codes
    /// (refused, unresolved host, timed out, reset, bad URL); every other
    /// code becomes -1 and the `CURLcode` itself is dropped. What remains
    /// is the message it puts in `NSLocalizedDescriptionKey` (libcurl's
    /// error buffer, or `curl_easy_strerror` when that is empty); the
    /// `NSUnderlyingError` it attaches is another -1 error with the same
    /// message. So for these two classes the message is the only signal.
    ///
    /// Only libcurl's fixed message prefixes are matched, and only for
    /// code -1 on FoundationNetworking (Apple platforms report these
    /// failures with their own codes):
    ///
    /// | libcurl code | message starts with | class |
    /// |---|---|---|
    /// | `CURLE_PARTIAL_FILE` (18) | `transfer closed with ` (body shorter than announced, or a chunked body cut off) | `connection_lost` |
    /// | `CURLE_PARTIAL_FILE` (18) | `Transferred a partial file` (its `curl_easy_strerror` text) | `connection_lost` |
    /// | `CURLE_SSL_CONNECT_ERROR` (35) | `OpenSSL/` (handshake failed: `OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number`), `OpenSSL SSL_connect: ` (connection broke during the handshake), `SSL connect error` | `tls` |
    /// | `CURLE_PEER_FAILED_VERIFICATION` (60) | `SSL certificate problem: ` (untrusted, expired, self-signed), `SSL: ` (host name mismatch), `SSL peer certificate or SSH remote key was not OK` | `tls` |
    ///
    /// Anything else stays `unknown`.
    static func libcurlFailure(message: String) -> TransportFailure? {
        if libcurlConnectionLostPrefixes.contains(where: message.hasPrefix) { return .connectionLost }
        if libcurlTLSPrefixes.contains(where: message.hasPrefix) { return .tls }
        return nil
    }

    static let libcurlConnectionLostPrefixes = ["transfer closed with ", "Transferred a partial file"]
    static let libcurlTLSPrefixes = [
        "OpenSSL/", "OpenSSL SSL_connect: ", "SSL connect error",
        "SSL certificate problem: ", "SSL: ", "SSL peer certificate or SSH remote key was not OK",
    ]

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
        // The response arrived but could not be read. FoundationNetworking
        // also reports an empty reply (`CURLE_GOT_NOTHING`) as
        // `badServerResponse`.
        case .cannotDecodeRawData, .cannotDecodeContentData, .cannotParseResponse, .badServerResponse:
            return .decoding
        default:
            return .unknown
        }
    }
}
