#if AsyncHTTPClient  // the trait; these tests need SwiftNIO and AsyncHTTPClient
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOSSL
@testable import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
@testable import RetryPolicyURLSession
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The mapping tables themselves, case by case. The loopback tests
/// (AsyncHTTPClientTransportTests, URLSessionTransportTests) prove that
/// real failures arrive in these shapes.
@Suite("Transport error classes of each adapter")
struct ErrorMappingTests {
    @Test(
        "every AsyncHTTPClient error maps to its transport class",
        arguments: [
            (HTTPClientError.connectTimeout, TransportFailure.timeout),
            (.readTimeout, .timeout),
            (.writeTimeout, .timeout),
            (.deadlineExceeded, .timeout),
            (.getConnectionFromPoolTimeout, .timeout),
            (.socksHandshakeTimeout, .timeout),
            (.httpProxyHandshakeTimeout, .timeout),
            (.tlsHandshakeTimeout, .tls),
            (.serverOfferedUnsupportedApplicationProtocol("h3"), .tls),
            (.remoteConnectionClosed, .connectionLost),
            (.bodyLengthMismatch, .connectionLost),
            (.uncleanShutdown, .connectionLost),
            (.cancelled, .cancelled),
            (.requestStreamCancelled, .cancelled),
            (.invalidURL, .invalidURL),
            (.emptyHost, .invalidURL),
            (.emptyScheme, .invalidURL),
            (.missingSocketPath, .invalidURL),
            (.unsupportedScheme("gopher"), .invalidURL),
            (.alreadyShutdown, .unknown),
            (.invalidProxyResponse, .unknown),
            (.proxyAuthenticationRequired, .unknown),
            (.redirectLimitReached, .unknown),
            (.redirectCycleDetected, .unknown),
            (.contentLengthMissing, .unknown),
            (.invalidHeaderFieldNames(["bad name"]), .unknown),
            (.internalStateFailure(), .unknown),
        ] as [(HTTPClientError, TransportFailure)])
    func httpClientError(error: HTTPClientError, expected: TransportFailure) {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(expected))
    }

    @Test(
        "socket errors map by errno",
        arguments: [
            (ECONNREFUSED, TransportFailure.connectionRefused),
            (ECONNRESET, .connectionLost),
            (EPIPE, .connectionLost),
            (ECONNABORTED, .connectionLost),
            (ENETUNREACH, .offline),
            (EHOSTUNREACH, .offline),
            (ENETDOWN, .offline),
            (ETIMEDOUT, .timeout),
            (EACCES, .unknown),
        ] as [(Int32, TransportFailure)])
    func ioError(code: Int32, expected: TransportFailure) {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: IOError(errnoCode: code, reason: "connect")) == .transport(expected))
    }

    @Test(
        "channel errors map to what the channel saw of the connection",
        arguments: [
            (ChannelError.connectTimeout(.seconds(1)), TransportFailure.timeout),
            (.ioOnClosedChannel, .connectionLost),
            (.alreadyClosed, .connectionLost),
            (.outputClosed, .connectionLost),
            (.inputClosed, .connectionLost),
            (.eof, .connectionLost),
            (.writeHostUnreachable, .offline),
            (.connectPending, .unknown),
            (.operationUnsupported, .unknown),
        ] as [(ChannelError, TransportFailure)])
    func channelError(error: ChannelError, expected: TransportFailure) {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(expected))
    }

    @Test(
        "an end of stream inside a message is connection_lost; any other parser error is decoding",
        arguments: [
            (HTTPParserError.invalidEOFState, TransportFailure.connectionLost),
            (.closedConnection, .connectionLost),
            (.invalidStatus, .decoding),
            (.invalidVersion, .decoding),
            (.invalidContentLength, .decoding),
            (.invalidChunkSize, .decoding),
            (.headerOverflow, .decoding),
        ] as [(HTTPParserError, TransportFailure)])
    func parserError(error: HTTPParserError, expected: TransportFailure) {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(expected))
    }

    @Test(
        "a failed handshake or certificate is tls; a dropped TLS session is connection_lost",
        arguments: [
            (NIOSSLError.handshakeFailed(.sslError([])), TransportFailure.tls),
            (.handshakeFailed(.sslError([.eofDuringHandshake])), .tls),
            (.handshakeFailed(.syscallError), .tls),
            (.noSuchFilesystemObject, .tls),
            (.failedToLoadCertificate, .tls),
            (.failedToLoadPrivateKey, .tls),
            (.cannotMatchULabel, .tls),
            (.noCertificateToValidate, .tls),
            (.unableToValidateCertificate, .tls),
            (.cannotFindPeerIP, .tls),
            (.uncleanShutdown, .connectionLost),
            (.shutdownFailed(.zeroReturn), .connectionLost),
            (.readInInvalidTLSState, .connectionLost),
            (.writeDuringTLSShutdown, .connectionLost),
        ] as [(NIOSSLError, TransportFailure)])
    func nioSSLError(error: NIOSSLError, expected: TransportFailure) {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(expected))
    }

    @Test("BoringSSL's and NIOSSL's later errors are tls")
    func otherTLSErrors() {
        for error: any Error in [
            BoringSSLError.sslError([]), BoringSSLError.syscallError, BoringSSLError.invalidSNIName([]),
            NIOSSLExtraError.failedToValidateHostname, NIOSSLExtraError.cannotUseIPAddressInSNI,
            NIOSSLExtraError.invalidSNIHostname,
        ] {
            #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(.tls), "\(error)")
        }
    }

    @Test(
        "address errors: a name that does not resolve is dns; a malformed address is invalid_url",
        arguments: [
            (SocketAddressError.unsupported, TransportFailure.dns),
            (.unixDomainSocketPathTooLong, .invalidURL),
            (.failedToParseIPString("300.1.1.1"), .invalidURL),
        ] as [(SocketAddressError, TransportFailure)])
    func socketAddressError(error: SocketAddressError, expected: TransportFailure) {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(expected))
    }

    /// `NIOConnectionError` has no public initialiser; its parts go
    /// through this function, which the real refused-port and `.invalid`
    /// tests reach through the type.
    @Test("a connection attempt is dns only when no address could be tried; otherwise the most telling address error wins")
    func connectionAttempts() {
        typealias Mapping = AsyncHTTPClientErrorMapping
        let lookup = SocketAddressError.unsupported
        let refused = IOError(errnoCode: ECONNREFUSED, reason: "connect")
        let unreachable = IOError(errnoCode: ENETUNREACH, reason: "connect")
        let timedOut = ChannelError.connectTimeout(.milliseconds(250))
        #expect(Mapping.connectionFailure(dnsErrors: [lookup, lookup], connectionErrors: []) == .dns)
        #expect(Mapping.connectionFailure(dnsErrors: [], connectionErrors: []) == .dns)
        #expect(Mapping.connectionFailure(dnsErrors: [lookup], connectionErrors: [refused]) == .connectionRefused)
        #expect(Mapping.connectionFailure(dnsErrors: [], connectionErrors: [unreachable, refused]) == .connectionRefused)
        #expect(Mapping.connectionFailure(dnsErrors: [], connectionErrors: [unreachable, timedOut]) == .timeout)
        #expect(Mapping.connectionFailure(dnsErrors: [], connectionErrors: [unreachable]) == .offline)
        #expect(Mapping.connectionFailure(dnsErrors: [], connectionErrors: [IOError(errnoCode: EACCES, reason: "connect")]) == .unknown)
    }

    @Test("cancellation from Swift concurrency is cancelled")
    func cancellation() {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: CancellationError()) == .transport(.cancelled))
        #expect(ErrorClassifier.urlSession.outcome(for: CancellationError()) == .transport(.cancelled))
    }

    @Test(
        "every URLError code the table names maps to its transport class",
        arguments: [
            (URLError.Code.timedOut, TransportFailure.timeout),
            (.cannotConnectToHost, .connectionRefused),
            (.cannotFindHost, .dns),
            (.dnsLookupFailed, .dns),
            (.secureConnectionFailed, .tls),
            (.serverCertificateHasBadDate, .tls),
            (.serverCertificateUntrusted, .tls),
            (.serverCertificateHasUnknownRoot, .tls),
            (.serverCertificateNotYetValid, .tls),
            (.clientCertificateRejected, .tls),
            (.clientCertificateRequired, .tls),
            (.networkConnectionLost, .connectionLost),
            (.notConnectedToInternet, .offline),
            (.internationalRoamingOff, .offline),
            (.callIsActive, .offline),
            (.dataNotAllowed, .offline),
            (.cancelled, .cancelled),
            (.badURL, .invalidURL),
            (.unsupportedURL, .invalidURL),
            (.cannotDecodeRawData, .decoding),
            (.cannotDecodeContentData, .decoding),
            (.cannotParseResponse, .decoding),
            (.badServerResponse, .decoding),
            (.unknown, .unknown),
            (.httpTooManyRedirects, .unknown),
            (.userAuthenticationRequired, .unknown),
        ])
    func urlError(code: URLError.Code, expected: TransportFailure) {
        #expect(ErrorClassifier.urlSession.outcome(for: URLError(code)) == .transport(expected))
    }

    @Test(
        "libcurl's messages behind URLError.unknown are recognised by their fixed prefixes",
        arguments: [
            ("transfer closed with 990 bytes remaining to read", TransportFailure?.some(.connectionLost)),
            ("transfer closed with outstanding read data remaining", .connectionLost),
            ("Transferred a partial file", .connectionLost),
            ("OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .tls),
            ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:443 ", .tls),
            ("SSL connect error", .tls),
            ("SSL certificate problem: self-signed certificate", .tls),
            ("SSL certificate problem: certificate has expired", .tls),
            ("SSL: no alternative certificate subject name matches target host name 'example.com'", .tls),
            ("SSL peer certificate or SSH remote key was not OK", .tls),
            // Near misses stay unclassified.
            ("", nil),
            ("Transfer closed", nil),
            ("the transfer closed with 3 bytes remaining to read", nil),
            ("Failed sending data to the peer", nil),
            ("Unsupported SSL protocol version", nil),
            ("sslv3 alert handshake failure", nil),
            // An empty reply is only an empty reply under its own code.
            ("Empty reply from server", nil),
        ])
    func libcurlUnknown(message: String, expected: TransportFailure?) {
        #expect(URLSessionErrorMapping.libcurlFailure(code: .unknown, message: message) == expected)
    }

    @Test(
        "libcurl's empty reply behind URLError.badServerResponse is connection_lost; other bad responses are not",
        arguments: [
            ("Empty reply from server", TransportFailure?.some(.connectionLost)),
            ("Server returned nothing (no headers, no data)", .connectionLost),
            ("", nil),
            ("Weird server reply", nil),
            ("transfer closed with 990 bytes remaining to read", nil),
        ])
    func libcurlBadServerResponse(message: String, expected: TransportFailure?) {
        #expect(URLSessionErrorMapping.libcurlFailure(code: .badServerResponse, message: message) == expected)
    }

    @Test("libcurl's messages are read under no other URLError code")
    func libcurlOtherCodes() {
        for code in [URLError.Code.timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .cancelled] {
            for message in ["transfer closed with 1 bytes remaining to read", "SSL connect error", "Empty reply from server"] {
                #expect(URLSessionErrorMapping.libcurlFailure(code: code, message: message) == nil)
            }
        }
    }

    #if canImport(FoundationNetworking)
    @Test(
        "on FoundationNetworking, URLError.unknown and .badServerResponse are classified by libcurl's message, and only those",
        arguments: [
            (URLError.Code.unknown, "transfer closed with 990 bytes remaining to read", TransportFailure.connectionLost),
            (.unknown, "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number", .tls),
            (.unknown, "SSL certificate problem: self-signed certificate", .tls),
            (.unknown, "Something else went wrong", .unknown),
            // A proper code wins over the message.
            (.timedOut, "transfer closed with 990 bytes remaining to read", .timeout),
            (.cannotFindHost, "SSL connect error", .dns),
            (.badServerResponse, "Empty reply from server", .connectionLost),
            (.badServerResponse, "Weird server reply", .decoding),
        ])
    func foundationNetworkingUnknown(code: URLError.Code, message: String, expected: TransportFailure) {
        let error = URLError(code, userInfo: [NSLocalizedDescriptionKey: message])
        #expect(ErrorClassifier.urlSession.outcome(for: error) == .transport(expected))
    }
    #endif

    @Test("URLError codes can be read differently; the rest of the table stays")
    func urlErrorOverrides() {
        let classifier = ErrorClassifier.urlSession(overriding: [
            .resourceUnavailable: .transport(.connectionLost), .badServerResponse: .condition("bad_gateway_page"),
        ])
        #expect(ErrorClassifier.urlSession.outcome(for: URLError(.resourceUnavailable)) == .transport(.unknown))
        #expect(classifier.outcome(for: URLError(.resourceUnavailable)) == .transport(.connectionLost))
        // An override wins over reading libcurl's message, too.
        let emptyReply = URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "Empty reply from server"])
        #expect(classifier.outcome(for: emptyReply) == .condition("bad_gateway_page"))
        #expect(classifier.outcome(for: URLError(.timedOut)) == .transport(.timeout))
    }

    @Test("an error no adapter knows is an unknown transport failure; a policy can still name it")
    func unknownErrors() {
        struct Strange: Error {}
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: Strange()) == .transport(.unknown))
        #expect(ErrorClassifier.urlSession.outcome(for: Strange()) == .transport(.unknown))
    }
}
#endif
