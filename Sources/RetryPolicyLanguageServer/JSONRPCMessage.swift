import Foundation

/// A request's id: the protocol allows a number or a string.
public enum RequestID: Codable, Sendable, Hashable {
    case number(Int)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }
}

/// One JSON-RPC 2.0 message: a request (`id` and `method`), a
/// notification (`method` alone) or a response (`id` with `result` or
/// `error`).
public struct JSONRPCMessage: Codable, Sendable, Hashable {
    public var jsonrpc: String = "2.0"
    public var id: RequestID?
    public var method: String?
    public var params: LSPValue?
    public var result: LSPValue?
    public var error: JSONRPCError?

    public init(id: RequestID?, method: String?, params: LSPValue? = nil, result: LSPValue? = nil, error: JSONRPCError? = nil) {
        self.id = id
        self.method = method
        self.params = params
        self.result = result
        self.error = error
    }

    public static func response(to id: RequestID?, result: LSPValue) -> JSONRPCMessage {
        JSONRPCMessage(id: id, method: nil, result: result)
    }

    public static func failure(to id: RequestID?, _ error: JSONRPCError) -> JSONRPCMessage {
        JSONRPCMessage(id: id, method: nil, error: error)
    }

    public static func notification(_ method: String, _ params: LSPValue) -> JSONRPCMessage {
        JSONRPCMessage(id: nil, method: method, params: params)
    }

    public static func request(id: RequestID, _ method: String, _ params: LSPValue) -> JSONRPCMessage {
        JSONRPCMessage(id: id, method: method, params: params)
    }

    /// The JSON text, with `result: null` kept for a response (the
    /// protocol requires `result` or `error`).
    public func encoded() -> [UInt8] {
        var fields: [String: LSPValue] = ["jsonrpc": "2.0"]
        if let id {
            switch id {
            case .number(let value): fields["id"] = .int(value)
            case .string(let value): fields["id"] = .string(value)
            }
        } else if method == nil {
            fields["id"] = .null
        }
        if let method { fields["method"] = .string(method) }
        if let params { fields["params"] = params }
        if let error {
            fields["error"] = ["code": .int(error.code), "message": .string(error.message)]
        } else if method == nil {
            fields["result"] = result ?? .null
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(LSPValue.object(fields))) ?? Data("{}".utf8))
    }
}

/// A JSON-RPC error: the code says which kind, the message what exactly.
public struct JSONRPCError: Codable, Sendable, Hashable, Error {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public static func parseError(_ message: String) -> JSONRPCError { JSONRPCError(code: -32700, message: message) }
    public static func invalidRequest(_ message: String) -> JSONRPCError { JSONRPCError(code: -32600, message: message) }
    public static func methodNotFound(_ method: String) -> JSONRPCError {
        JSONRPCError(code: -32601, message: "unknown method \(method)")
    }
    public static func invalidParams(_ message: String) -> JSONRPCError { JSONRPCError(code: -32602, message: message) }
    public static let serverNotInitialized = JSONRPCError(code: -32002, message: "the server is not initialized yet")
    public static let invalidAfterShutdown = JSONRPCError(code: -32600, message: "the server is shut down: only exit is accepted")
}
