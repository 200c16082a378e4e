import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import RetryPolicyAsyncHTTPClient
import RetryPolicyCore
import RetryPolicyExecutor
import RetryPolicyURLSession
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Transport error classes of each adapter")
struct ErrorMappingTests {
    @Test(
        "AsyncHTTPClient and SwiftNIO errors map to the policy's transport classes",
        arguments: [
            (HTTPClientError.readTimeout as any Error, TransportFailure.timeout),
            (HTTPClientError.connectTimeout, .timeout),
            (HTTPClientError.deadlineExceeded, .timeout),
            (HTTPClientError.tlsHandshakeTimeout, .tls),
            (HTTPClientError.remoteConnectionClosed, .connectionLost),
            (HTTPClientError.cancelled, .cancelled),
            (HTTPClientError.invalidURL, .invalidURL),
            (HTTPClientError.emptyHost, .invalidURL),
            (HTTPClientError.unsupportedScheme("gopher"), .invalidURL),
            (IOError(errnoCode: ECONNREFUSED, reason: "connect"), .connectionRefused),
            (IOError(errnoCode: ECONNRESET, reason: "read"), .connectionLost),
            (IOError(errnoCode: ENETUNREACH, reason: "connect"), .offline),
            (ChannelError.connectTimeout(.seconds(1)), .timeout),
            (ChannelError.eof, .connectionLost),
            (HTTPParserError.invalidEOFState, .connectionLost),
            (HTTPParserError.invalidStatus, .decoding),
            (CancellationError(), .cancelled),
        ] as [(any Error, TransportFailure)])
    func asyncHTTPClient(error: any Error, expected: TransportFailure) {
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: error) == .transport(expected))
    }

    @Test(
        "URLError codes map to the policy's transport classes",
        arguments: [
            (URLError.Code.timedOut, TransportFailure.timeout),
            (.cannotConnectToHost, .connectionRefused),
            (.cannotFindHost, .dns),
            (.dnsLookupFailed, .dns),
            (.secureConnectionFailed, .tls),
            (.serverCertificateUntrusted, .tls),
            (.networkConnectionLost, .connectionLost),
            (.notConnectedToInternet, .offline),
            (.cancelled, .cancelled),
            (.badURL, .invalidURL),
            (.unsupportedURL, .invalidURL),
            (.cannotParseResponse, .decoding),
            (.unknown, .unknown),
        ])
    func urlSession(code: URLError.Code, expected: TransportFailure) {
        #expect(ErrorClassifier.urlSession.outcome(for: URLError(code)) == .transport(expected))
    }

    @Test("an error no adapter knows is an unknown transport failure; a policy can still name it")
    func unknownErrors() {
        struct Strange: Error {}
        #expect(ErrorClassifier.asyncHTTPClient.outcome(for: Strange()) == .transport(.unknown))
        #expect(ErrorClassifier.urlSession.outcome(for: Strange()) == .transport(.unknown))
    }
}
