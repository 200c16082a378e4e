#if AsyncHTTPClient && OpenAPI  // the traits; these tests need SwiftNIO, AsyncHTTPClient and swift-openapi-runtime
import Foundation
import HTTPTestSupport
import OpenAPIRuntime
import OpenAPITestClient

/// The operation of `Tests/OpenAPITestClient/openapi.yaml` that carries a
/// conformance request, chosen by its method and path, with the request's
/// headers and body as the operation's typed input.
///
/// Only what the document states is accepted: a request of another shape
/// (method, path, query, header, or a body the operation does not take)
/// has no operation and is refused with `UnmatchedRequest`, so a new case
/// needs an operation in the document rather than going around the
/// generated client.
enum OpenAPIOperation: Sendable {
    /// `GET /`
    case getFrontPage
    /// `GET /movie/{id}`
    case getMovieSummary(id: Int)
    /// `POST /payments`, a JSON `Payment`, with or without `Idempotency-Key`.
    case createPayment(Components.Schemas.Payment, idempotencyKey: String?)
    /// `PUT /orders/{id}`, raw bytes.
    case replaceOrder(id: Int, body: Body)
    /// `PUT /posters/{name}`, raw bytes.
    case uploadPoster(name: String, body: Body)

    /// A raw request body, sent as the request says: replayable, or as a
    /// stream that can be read once.
    struct Body: Sendable {
        var bytes: [UInt8]
        var isOneShot: Bool

        var httpBody: HTTPBody { isOneShot ? .oneShot(bytes) : HTTPBody(bytes) }
    }

    /// A request no operation of the document takes.
    struct UnmatchedRequest: Error, CustomStringConvertible {
        var description: String
    }

    /// The encoding the generated client is configured with, so that a
    /// JSON body goes out byte for byte as the request has it.
    static let jsonEncodingOptions: JSONEncodingOptions = [.sortedKeys]

    /// The server `request` goes to (scheme, host and port) and the
    /// operation that carries it.
    static func matching(_ request: ConformanceRequest) throws(UnmatchedRequest) -> (server: URL, operation: OpenAPIOperation) {
        let shape = "\(request.method.rawValue) \(request.url) (headers: \(request.headers.map(\.name)), body: \(request.body.map { "\($0.count) bytes" } ?? "none"))"
        func unmatched(_ why: String) -> UnmatchedRequest {
            UnmatchedRequest(
                description:
                    "no operation of Tests/OpenAPITestClient/openapi.yaml takes \(shape): \(why); add one and map it in OpenAPIOperation")
        }
        guard var components = URLComponents(string: request.url), components.host != nil else {
            throw unmatched("not an absolute URL")
        }
        guard components.percentEncodedQuery == nil, components.fragment == nil else { throw unmatched("no operation has a query") }
        let segments = components.percentEncodedPath.split(separator: "/").map(String.init)
        components.percentEncodedPath = ""
        guard let server = components.url else { throw unmatched("no server URL") }

        var idempotencyKey: String?
        for (name, value) in request.headers {
            guard name.lowercased() == "idempotency-key", idempotencyKey == nil else {
                throw unmatched("no operation has the header \(name)")
            }
            idempotencyKey = value
        }
        let body = request.body.map { Body(bytes: $0, isOneShot: request.bodyIsOneShot) }

        let operation: OpenAPIOperation
        switch (request.method.rawValue, segments.count, segments.first) {
        case ("GET", 0, _) where body == nil && idempotencyKey == nil:
            operation = .getFrontPage
        case ("GET", 2, "movie") where body == nil && idempotencyKey == nil:
            guard let id = Int(segments[1]) else { throw unmatched("a movie's id is an integer") }
            operation = .getMovieSummary(id: id)
        case ("POST", 1, "payments"):
            guard let body, !body.isOneShot else { throw unmatched("createPayment takes a JSON body, sent whole") }
            let payment: Components.Schemas.Payment
            do {
                payment = try JSONDecoder().decode(Components.Schemas.Payment.self, from: Data(body.bytes))
            } catch {
                throw unmatched("the body is not a Payment (\(error))")
            }
            // What the generated client will send must be what the case sends.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard (try? Array(encoder.encode(payment))) == body.bytes else {
                throw unmatched("the generated client would send the Payment in other bytes")
            }
            operation = .createPayment(payment, idempotencyKey: idempotencyKey)
        case ("PUT", 2, "orders") where idempotencyKey == nil:
            guard let id = Int(segments[1]), let body else { throw unmatched("replaceOrder takes an integer id and a body") }
            operation = .replaceOrder(id: id, body: body)
        case ("PUT", 2, "posters") where idempotencyKey == nil:
            guard let body, let name = segments[1].removingPercentEncoding else {
                throw unmatched("uploadPoster takes a name and a body")
            }
            operation = .uploadPoster(name: name, body: body)
        default:
            throw unmatched("no operation has this method, path, header and body")
        }
        return (server, operation)
    }

    /// Sends the operation through `client` and reads the response back
    /// from its `Output`, documented or not.
    func send(through client: Client) async throws -> ConformanceResponse {
        switch self {
        case .getFrontPage:
            switch try await client.getFrontPage() {
            case .ok(let ok): return try await Self.response(200, try ok.body.plainText)
            case .serviceUnavailable(let busy): return try await Self.response(503, try busy.body.plainText)
            case .undocumented(let status, let payload): return try await Self.response(status, payload.body)
            }
        case .getMovieSummary(let id):
            switch try await client.getMovieSummary(path: .init(id: id)) {
            case .ok(let ok): return try await Self.response(200, try ok.body.plainText)
            case .undocumented(let status, let payload): return try await Self.response(status, payload.body)
            }
        case .createPayment(let payment, let idempotencyKey):
            switch try await client.createPayment(headers: .init(idempotencyKey: idempotencyKey), body: .json(payment)) {
            case .ok(let ok): return try await Self.response(200, try ok.body.plainText)
            case .undocumented(let status, let payload): return try await Self.response(status, payload.body)
            }
        case .replaceOrder(let id, let body):
            switch try await client.replaceOrder(path: .init(id: id), body: .binary(body.httpBody)) {
            case .ok(let ok): return try await Self.response(200, try ok.body.plainText)
            case .undocumented(let status, let payload): return try await Self.response(status, payload.body)
            }
        case .uploadPoster(let name, let body):
            switch try await client.uploadPoster(path: .init(name: name), body: .binary(body.httpBody)) {
            case .noContent: return ConformanceResponse(status: 204, body: "")
            case .undocumented(let status, let payload): return try await Self.response(status, payload.body)
            }
        }
    }

    static func response(_ status: Int, _ body: HTTPBody?) async throws -> ConformanceResponse {
        guard let body else { return ConformanceResponse(status: status, body: "") }
        return ConformanceResponse(status: status, body: try await String(collecting: body, upTo: 1 << 20))
    }
}
#endif
