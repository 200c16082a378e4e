import Foundation
import RetryPolicyLanguageServer
import RetryPolicyYAML
import Synchronization

/// One run of the server on a fuzzed byte stream, driven as
/// `StandardStreamTransport` drives it: each read goes to a
/// `MessageFramer`, each whole message to `handle`, each framing error to
/// `reject`, until `exit`.
///
/// Checked beyond "never traps":
/// - the framer never holds more than its largest message plus the
///   longest header block;
/// - every chunk the server writes is exactly one frame whose body is a
///   `JSONRPCMessage`;
/// - a request (an `id` and a `method`, `exit` aside) is answered by
///   exactly one response with its id while it is handled, and nothing
///   else is answered with an id;
/// - the server never holds more than `LanguageServer.maximumOpenDocuments`.
///
/// The debounce is zero, so every check runs inside the `handle` call
/// that caused it and the output of a message is known when it returns.
struct LanguageServerSession {
    /// Small, so that the fuzzer's inputs reach the limit and the
    /// skipping of a body too large.
    static let maximumMessageBytes = 4096

    let server: LanguageServer
    let written: OutputLog

    init(root: PolicyRoot) {
        let written = OutputLog()
        self.written = written
        server = LanguageServer(root: root, debounce: .zero) { bytes in written.append(bytes) }
    }

    func run(_ stream: [UInt8], in schedule: ReadSchedule) async {
        var schedule = schedule
        var framer = MessageFramer(maximumMessageBytes: Self.maximumMessageBytes)
        var offset = 0
        while offset < stream.count {
            let end = offset + schedule.nextSize(remaining: stream.count - offset)
            framer.append(stream[offset..<end])
            offset = end
            require(
                framer.heldBytes <= Self.maximumMessageBytes + MessageFramer.maximumHeaderBytes,
                "the framer holds \(framer.heldBytes) bytes")
            while let frame = framer.next() {
                switch frame {
                case .message(let body):
                    if await handle(body) == .proceed { continue }
                    return
                case .rejected(let error):
                    let before = written.count
                    await server.reject(error)
                    for message in written.messages(from: before) {
                        require(message.id == nil, "a framing error answered with id \(String(describing: message.id))")
                    }
                }
            }
        }
    }

    private func handle(_ body: [UInt8]) async -> LanguageServer.Next {
        let sent = try? JSONDecoder().decode(JSONRPCMessage.self, from: Data(body))
        let before = written.count
        let next = await server.handle(body)
        let responses = written.messages(from: before).filter { $0.method == nil && $0.id != nil }
        if let sent, let id = sent.id, let method = sent.method, method != "exit" {
            require(
                responses.count == 1 && responses[0].id == id,
                "request \(id) (\(method)) answered by \(responses.map { String(describing: $0.id) })")
        } else {
            require(responses.isEmpty, "a message without a request answered with \(responses.map { String(describing: $0.id) })")
        }
        let open = await server.openDocumentCount
        require(open <= LanguageServer.maximumOpenDocuments, "\(open) documents open")
        return next
    }
}

/// What the server wrote, a chunk per `output` call.
final class OutputLog: Sendable {
    private let chunks = Mutex<[[UInt8]]>([])

    func append(_ chunk: [UInt8]) { chunks.withLock { $0.append(chunk) } }

    var count: Int { chunks.withLock { $0.count } }

    /// The messages written since `start`: each chunk must be one whole
    /// frame, framed as the server frames, around a JSON-RPC message.
    func messages(from start: Int) -> [JSONRPCMessage] {
        chunks.withLock { Array($0[start...]) }.map { chunk in
            var reader = MessageFramer()
            reader.append(chunk)
            guard case .message(let body)? = reader.next() else {
                fatalError("a chunk of \(chunk.count) bytes that is not one frame")
            }
            require(reader.next() == nil && reader.heldBytes == 0, "a chunk of \(chunk.count) bytes with more than one frame")
            require(MessageFramer.frame(body) == chunk, "a chunk framed unlike the server frames")
            guard let message = try? JSONDecoder().decode(JSONRPCMessage.self, from: Data(body)) else {
                fatalError("a frame whose body is not a JSON-RPC message: \(String(decoding: body.prefix(200), as: UTF8.self))")
            }
            return message
        }
    }
}

/// A property that failed: trap, so libFuzzer keeps the input.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
