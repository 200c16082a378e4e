#if GRPC  // the trait; these tests need grpc-swift and its NIO transport
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import RetryPolicyCore

/// Messages as their bytes: the test service needs no generated code.
struct BytesCoder: MessageSerializer, MessageDeserializer {
    typealias Message = [UInt8]

    func serialize<Bytes: GRPCContiguousBytes>(_ message: [UInt8]) throws -> Bytes { Bytes(message) }

    func deserialize<Bytes: GRPCContiguousBytes>(_ serializedMessageBytes: Bytes) throws -> [UInt8] {
        serializedMessageBytes.withUnsafeBytes { Array($0) }
    }
}

/// The test service's methods.
enum Scripted {
    static let service = ServiceDescriptor(fullyQualifiedService: "test.Scripted")
    static let unary = method("Unary", .unary)
    static let collect = method("Collect", .clientStreaming)
    static let watch = method("Watch", .serverStreaming)
    /// A unary method the server never registers.
    static let missing = method("Missing", .unary)

    static func method(_ name: String, _ type: MethodDescriptor.RPCType?) -> MethodDescriptor {
        var descriptor = MethodDescriptor(service: service, method: name)
        descriptor.type = type
        return descriptor
    }
}

/// What the server answers to one call.
enum ScriptedReply: Sendable {
    /// OK with this message.
    case ok(String)
    /// A status and its trailing metadata.
    case fail(RPCError.Code, metadata: Metadata = [:])
    /// No answer until the call is cancelled (or the test releases it).
    case hang
}

/// One call the server received.
struct ReceivedCall: Sendable {
    var method: String
    var metadata: Metadata
    var messages: [[UInt8]]

    /// gRFC A6's count of earlier attempts, as sent.
    var previousAttempts: String? { metadata[stringValues: "grpc-previous-rpc-attempts"].first(where: { _ in true }) }
}

/// A grpc-swift 2 server on 127.0.0.1 (a port the system picks) over the
/// NIO HTTP/2 transport, answering each call with the next reply of its
/// script (OK once the script is spent) and recording what it received.
final class ScriptedGRPCServer: Sendable {
    private struct State {
        var script: [ScriptedReply]
        var received: [ReceivedCall] = []
        var waiters: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextWaiterID = 0
        /// Calls that hang until the server shuts down (or the call ends).
        var hanging: [CheckedContinuation<Void, Never>] = []
        var shuttingDown = false
    }

    private let state: LockedValue<State>
    private let server: GRPCServer<HTTP2ServerTransport.Posix>
    private let serving: Task<Void, any Error>
    let port: Int

    private init(state: LockedValue<State>, server: GRPCServer<HTTP2ServerTransport.Posix>, serving: Task<Void, any Error>, port: Int) {
        self.state = state
        self.server = server
        self.serving = serving
        self.port = port
    }

    static func start(_ script: [ScriptedReply]) async throws -> ScriptedGRPCServer {
        let state = LockedValue(State(script: script))
        let transport = HTTP2ServerTransport.Posix(address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext)
        let server = GRPCServer(transport: transport, services: [Service(state: state)])
        let serving = Task { try await server.serve() }
        let address = try await transport.listeningAddress
        guard let port = address.ipv4?.port else { throw RPCError(code: .internalError, message: "not bound to IPv4") }
        return ScriptedGRPCServer(state: state, server: server, serving: serving, port: port)
    }

    /// Every call received, in order.
    var received: [ReceivedCall] { state.withLock { $0.received } }
    var callCount: Int { state.withLock { $0.received.count } }

    /// Returns once the server has received `count` calls, or as soon as
    /// the calling task is cancelled.
    func calls(atLeast count: Int) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if Task.isCancelled || state.received.count >= count { return true }
                    state.waiters.append((id, count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume()
        }
    }

    /// Ends the hanging calls, then stops the server once its calls have
    /// ended.
    func shutdown() async {
        let hanging = state.withLock { state in
            state.shuttingDown = true
            defer { state.hanging = [] }
            return state.hanging
        }
        for call in hanging { call.resume() }
        server.beginGracefulShutdown()
        _ = await serving.result
    }

    private struct Service: RegistrableRPCService {
        let state: LockedValue<State>

        func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
            for method in [Scripted.unary, Scripted.collect, Scripted.watch] {
                router.registerHandler(forMethod: method, deserializer: BytesCoder(), serializer: BytesCoder()) {
                    request, _ in
                    var messages: [[UInt8]] = []
                    for try await message in request.messages { messages.append(message) }
                    let reply = receive(ReceivedCall(method: method.method, metadata: request.metadata, messages: messages))
                    switch reply {
                    case .ok(let text):
                        return StreamingServerResponse(single: ServerResponse(message: Array(text.utf8)))
                    case .fail(let code, let metadata):
                        return StreamingServerResponse(error: RPCError(code: code, message: "scripted", metadata: metadata))
                    case .hang:
                        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                            let ended = state.withLock { state in
                                if state.shuttingDown { return true }
                                state.hanging.append(continuation)
                                return false
                            }
                            if ended { continuation.resume() }
                        }
                        return StreamingServerResponse(error: RPCError(code: .unavailable, message: "shutting down"))
                    }
                }
            }
        }

        private func receive(_ call: ReceivedCall) -> ScriptedReply {
            let (reply, ready) = state.withLock { state in
                state.received.append(call)
                let reply = state.script.isEmpty ? ScriptedReply.ok("done") : state.script.removeFirst()
                let count = state.received.count
                let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
                state.waiters.removeAll { $0.count <= count }
                return (reply, ready)
            }
            for continuation in ready { continuation.resume() }
            return reply
        }
    }
}
#endif
