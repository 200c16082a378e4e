#if AsyncHTTPClient && GRPC  // the traits; these tests need SwiftNIO, AsyncHTTPClient and grpc-swift
import GRPCCore
import GRPCTestSupport
import HTTPTestSupport
import RetryPolicyCore

/// How a contract case, written in HTTP, reads for gRPC: the server's
/// script and the request, mapped one way, and the status a gRPC answer
/// stands for, mapped back.
///
/// | HTTP (the case)                        | gRPC                                                    |
/// |----------------------------------------|---------------------------------------------------------|
/// | 200 with a body                        | `OK`, the body as the response message                  |
/// | 503 (and 502)                          | `UNAVAILABLE`                                           |
/// | 429                                    | `RESOURCE_EXHAUSTED`                                    |
/// | 400 (a 4xx that must not retry)       | `INVALID_ARGUMENT`                                      |
/// | 401                                    | `UNAUTHENTICATED`                                       |
/// | 404                                    | `NOT_FOUND`                                             |
/// | a failed response's body               | the status message                                      |
/// | `Retry-After: N` (seconds)             | `grpc-retry-pushback-ms: N × 1000` in the trailers      |
/// | `Retry-After` as an HTTP-date          | none: A6's pushback is a delay (the case does not run)  |
/// | no answer (`hang`)                     | no status until the client cancels the call             |
/// | a connection reset mid-response        | none the server can produce (the cases do not run)      |
/// | a refused port                         | `UNAVAILABLE` from the client (the case does not run)   |
/// | the request's headers                  | its metadata                                            |
/// | the request's path and method          | metadata `conformance-path`, `conformance-method`       |
/// | the request's body                     | the request message of a unary call                     |
/// | a one-shot body stream                 | a client stream's messages, the call marked `.unsafe`   |
/// | GET, PUT (idempotent by RFC 9110)      | retryability `.idempotent` (the transport's default)    |
/// | POST                                   | retryability `.asPolicySays`: the policy sees a `POST`  |
/// | `Idempotency-Key`                      | retryability `.idempotent`                              |
///
/// gRPC has no URL or HTTP method (every call is an HTTP/2 `POST` to
/// `/package.Service/Method`): the path and method travel as metadata, so
/// that the server's record of each attempt shows the call's metadata
/// sent again. A method's idempotency is what the app states in
/// `GRPCMethodPolicy.retryability`; the transport tells the policy every
/// call is a `POST`, so `.asPolicySays` leaves a POST to the policy's
/// `idempotency` methods as HTTP does.
///
/// A status or action the table lacks fails the case that scripts it
/// (`GRPCScript.Unmapped`) rather than running something else.
enum GRPCScript {
    static let pathKey = "conformance-path"
    static let methodKey = "conformance-method"

    /// A script action with no gRPC form in the table.
    struct Unmapped: Error, CustomStringConvertible {
        var description: String
    }

    /// The gRPC code a scripted HTTP status becomes.
    static func code(for status: Int) throws(Unmapped) -> RPCError.Code? {
        switch status {
        case 200: nil
        case 400: .invalidArgument
        case 401: .unauthenticated
        case 404: .notFound
        case 429: .resourceExhausted
        case 502, 503: .unavailable
        default: throw Unmapped(description: "HTTP \(status) has no gRPC form in GRPCScript")
        }
    }

    /// The HTTP status a gRPC code stands for (`OK` for 200).
    static func httpStatus(of code: GRPCStatusCode) -> Int? {
        switch code {
        case .ok: 200
        case .invalidArgument: 400
        case .unauthenticated: 401
        case .notFound: 404
        case .resourceExhausted: 429
        case .unavailable: 503
        default: nil
        }
    }

    /// What the gRPC server does for `action`.
    static func reply(for action: ServerAction) throws(Unmapped) -> ScriptedReply {
        switch action {
        case .respond(let status, let headers, let body):
            var trailers = Metadata()
            for (name, value) in headers {
                guard name.lowercased() == "retry-after" else {
                    throw Unmapped(description: "header \(name) has no gRPC form in GRPCScript")
                }
                guard let seconds = Int(value), seconds >= 0 else {
                    throw Unmapped(description: "Retry-After \(value) has no gRPC form: a pushback is a delay in ms")
                }
                trailers.addString(String(seconds * 1000), forKey: GRPCStatusCode.pushbackKey)
            }
            guard let code = try code(for: status) else { return .ok(body) }
            return .fail(code, message: body, metadata: trailers)
        case .hang:
            return .hang
        case .closeMidResponse, .resetMidResponse, .closeWithoutResponse:
            throw Unmapped(description: "\(action): the scripted gRPC server cannot drop a connection")
        }
    }

    /// What the app states about the call's idempotency.
    static func retryability(of request: ConformanceRequest) -> RetryRequest.Retryability {
        if request.bodyIsOneShot { return .unsafe }
        if request.hasIdempotencyKey || HTTPMethod.defaultRetryable.contains(request.method) { return .idempotent }
        return .asPolicySays
    }

    /// The call's metadata: the request's headers, its path and method.
    static func metadata(of request: ConformanceRequest, path: String) -> Metadata {
        var metadata = Metadata()
        for (name, value) in request.headers { metadata.addString(value, forKey: name.lowercased()) }
        metadata.addString(path, forKey: pathKey)
        metadata.addString(request.method.rawValue, forKey: methodKey)
        return metadata
    }

    /// The contract cases with no gRPC form, and why.
    static let inapplicableCases: [String: String] = [
        "retryAfterHTTPDate":
            "grpc-retry-pushback-ms (gRFC A6) is a delay in milliseconds; gRPC has no form of Retry-After as a date",
        "refusedConnection":
            "grpc-swift's NIO transport reports a connection it could not make as UNAVAILABLE, the status a server "
            + "sends (gRFC A6 retries both alike), so there is no connection_refused to report; "
            + "RetryPolicyGRPCTests and docs/grpc.md say so",
        "resetConnection":
            "a grpc-swift server cannot break off its own call or connection; a relay in front of it that resets "
            + "the connection leaves the next attempt, which the test clock lets go at once, racing grpc-swift "
            + "learning that the connection is gone (\"subchannel isn't ready\")",
        "sameEventSequence":
            "its script loses a connection mid-response, which has no gRPC form here (see resetConnection)",
    ]
}

#endif
