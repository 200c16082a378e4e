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
    public static let urlSession = ErrorClassifier { error in
        guard let error = error as? URLError else { return nil }
        if error.code == .unknown, URLSessionErrorMapping.isTruncatedTransfer(error) { return .transport(.connectionLost) }
        return .transport(URLSessionErrorMapping.transportFailure(for: error.code))
    }
}

enum URLSessionErrorMapping {
    /// FoundationNetworking on Linux reports libcurl's "transfer closed
    /// with N bytes remaining" (a connection dropped mid-body) as code -1
    /// rather than `networkConnectionLost`; Apple platforms use the proper
    /// code.
    static func isTruncatedTransfer(_ error: URLError) -> Bool {
        let text = error.localizedDescription
        return text.contains("transfer closed") || text.contains("bytes remaining to read")
    }

    static func transportFailure(for code: URLError.Code) -> TransportFailure {
        switch code {
        case .timedOut:
            return .timeout
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
        case .notConnectedToInternet, .internationalRoamingOff, .callIsActive, .dataNotAllowed:
            return .offline
        case .cancelled:
            return .cancelled
        case .badURL, .unsupportedURL:
            return .invalidURL
        case .cannotDecodeRawData, .cannotDecodeContentData, .cannotParseResponse, .badServerResponse:
            return .decoding
        default:
            return .unknown
        }
    }
}
