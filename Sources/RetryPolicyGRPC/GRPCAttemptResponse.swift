#if GRPC  // the trait; without it this module is empty
import GRPCCore
import RetryPolicyCore

/// One attempt's whole response, held until the policy has judged it:
/// the parts as they arrived (headers, the message, the status), to hand
/// to the caller when the attempt is the one that counts.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct GRPCAttemptResponse<Bytes: GRPCContiguousBytes & Sendable>: Sendable {
    var parts: [RPCResponsePart<Bytes>]
    var status: Status
    var trailers: Metadata

    /// Reads an attempt's response parts up to its status, keeping at most
    /// `limit` bytes of messages. A response that ends without a status
    /// lost its connection.
    static func read(
        _ inbound: RPCAsyncSequence<RPCResponsePart<Bytes>, any Error>, limit: Int
    ) async throws -> Self {
        var parts: [RPCResponsePart<Bytes>] = []
        var bytes = 0
        for try await part in inbound {
            parts.append(part)
            switch part {
            case .metadata:
                continue
            case .message(let message):
                bytes = bytes.addingReportingOverflow(message.count).partialValue
                guard bytes >= 0, bytes <= limit else {
                    throw RPCError(
                        code: .resourceExhausted,
                        message: "the response's messages exceed the \(limit) bytes held while the policy judges the attempt")
                }
            case .status(let status, let trailers):
                return Self(parts: parts, status: status, trailers: trailers)
            }
        }
        throw RPCError(code: .unavailable, message: "the response ended without a status")
    }

    /// What the attempt means to the policy: its status, with the
    /// trailers the policy reads (the pushback among them).
    func outcome(readingTrailers names: [String]) -> AttemptOutcome {
        .grpc(status: GRPCStatusCode(status.code), metadata: ResponseHeaders(trailers, named: names))
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension GRPCStatusCode {
    /// A gRPC status code as the policy names it; grpc-swift's codes are
    /// the same 0...16.
    init(_ code: Status.Code) {
        self = GRPCStatusCode(rawValue: code.rawValue) ?? .unknown
    }

    init(_ code: RPCError.Code) {
        self = GRPCStatusCode(rawValue: code.rawValue) ?? .unknown
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension ResponseHeaders {
    /// The text entries of `metadata` named in `names` or the pushback,
    /// and only those: the policy reads nothing else, and a call's
    /// trailers can be large.
    init(_ metadata: Metadata, named names: [String]) {
        self.init()
        for (key, value) in metadata {
            guard case .string(let text) = value else { continue }
            let name = key.lowercased()
            guard name == GRPCStatusCode.pushbackKey || names.contains(where: { $0.lowercased() == name }) else { continue }
            append(name: key, value: text)
        }
    }
}
#endif
